#include "cel/internal/types.h"

#include "common/str_cat.h"

namespace draplane::cel::internal {

struct Type::Rep {
  TypeKind kind;
  std::string name;
  std::vector<Type> params;
  // Object types only; null when the fields are not declared.
  std::shared_ptr<const std::vector<ObjectField>> fields;
};

Type Type::Make(TypeKind kind, std::string name, std::vector<Type> params) {
  return Type(std::make_shared<const Rep>(
      Rep{kind, std::move(name), std::move(params), nullptr}));
}

Type::Type() : Type(Dyn()) {}

Type Type::Dyn() {
  static const Type* t = new Type(Make(TypeKind::kDyn, "dyn", {}));
  return *t;
}
Type Type::Any() {
  static const Type* t =
      new Type(Make(TypeKind::kAny, "google.protobuf.Any", {}));
  return *t;
}
Type Type::Error() {
  static const Type* t = new Type(Make(TypeKind::kError, "error", {}));
  return *t;
}
Type Type::Null() {
  static const Type* t = new Type(Make(TypeKind::kNull, "null_type", {}));
  return *t;
}
Type Type::Bool() {
  static const Type* t = new Type(Make(TypeKind::kBool, "bool", {}));
  return *t;
}
Type Type::Int() {
  static const Type* t = new Type(Make(TypeKind::kInt, "int", {}));
  return *t;
}
Type Type::Uint() {
  static const Type* t = new Type(Make(TypeKind::kUint, "uint", {}));
  return *t;
}
Type Type::Double() {
  static const Type* t = new Type(Make(TypeKind::kDouble, "double", {}));
  return *t;
}
Type Type::String() {
  static const Type* t = new Type(Make(TypeKind::kString, "string", {}));
  return *t;
}
Type Type::Bytes() {
  static const Type* t = new Type(Make(TypeKind::kBytes, "bytes", {}));
  return *t;
}
Type Type::Timestamp() {
  static const Type* t =
      new Type(Make(TypeKind::kTimestamp, "google.protobuf.Timestamp", {}));
  return *t;
}
Type Type::Duration() {
  static const Type* t =
      new Type(Make(TypeKind::kDuration, "google.protobuf.Duration", {}));
  return *t;
}
Type Type::TypeType() {
  static const Type* t = new Type(Make(TypeKind::kType, "type", {}));
  return *t;
}

Type Type::List(Type element) {
  return Make(TypeKind::kList, "list", {std::move(element)});
}
Type Type::Map(Type key, Type value) {
  return Make(TypeKind::kMap, "map", {std::move(key), std::move(value)});
}
Type Type::Optional(Type value) {
  return Make(TypeKind::kOpaque, "optional_type", {std::move(value)});
}
Type Type::Opaque(std::string name, std::vector<Type> params) {
  return Make(TypeKind::kOpaque, std::move(name), std::move(params));
}
Type Type::Struct(std::string name) {
  return Make(TypeKind::kStruct, std::move(name), {});
}
Type Type::Struct(std::string name,
                  std::vector<std::pair<std::string, Type>> fields) {
  auto decls = std::make_shared<std::vector<ObjectField>>();
  for (auto& [field_name, field_type] : fields) {
    decls->push_back(
        {std::move(field_name), std::make_shared<const Type>(field_type)});
  }
  return Type(std::make_shared<const Rep>(
      Rep{TypeKind::kStruct, std::move(name), {}, std::move(decls)}));
}
Type Type::TypeOf(Type t) {
  return Make(TypeKind::kType, "type", {std::move(t)});
}
Type Type::Param(std::string name) {
  return Make(TypeKind::kTypeParam, std::move(name), {});
}

TypeKind Type::kind() const { return rep_->kind; }
const std::string& Type::name() const { return rep_->name; }
const std::vector<Type>& Type::params() const { return rep_->params; }

bool Type::is_optional() const {
  return rep_->kind == TypeKind::kOpaque && rep_->name == "optional_type" &&
         rep_->params.size() == 1;
}

bool Type::has_field_declarations() const { return rep_->fields != nullptr; }

const Type* Type::FindField(std::string_view name) const {
  if (rep_->fields == nullptr) return nullptr;
  for (const ObjectField& f : *rep_->fields) {
    if (f.name == name) return f.type.get();
  }
  return nullptr;
}

const std::vector<ObjectField>& Type::fields() const {
  static const std::vector<ObjectField>* empty = new std::vector<ObjectField>;
  return rep_->fields != nullptr ? *rep_->fields : *empty;
}

namespace {

bool SameType(const Type& a, const Type& b, bool check_param_names) {
  if (a.kind() != b.kind() || a.params().size() != b.params().size()) {
    return false;
  }
  if ((check_param_names || a.kind() != TypeKind::kTypeParam) &&
      a.name() != b.name()) {
    return false;
  }
  for (size_t i = 0; i < a.params().size(); ++i) {
    if (!SameType(a.params()[i], b.params()[i], check_param_names)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool Type::IsExact(const Type& other) const {
  return rep_ == other.rep_ || SameType(*this, other, true);
}

bool Type::IsEquivalent(const Type& other) const {
  return rep_ == other.rep_ || SameType(*this, other, false);
}

bool Type::IsDynOrAny() const {
  return rep_->kind == TypeKind::kDyn || rep_->kind == TypeKind::kAny;
}

std::string Type::Format() const {
  switch (rep_->kind) {
    case TypeKind::kAny:
      return "any";
    case TypeKind::kDuration:
      return "duration";
    case TypeKind::kError:
      return "!error!";
    case TypeKind::kNull:
      return "null";
    case TypeKind::kTimestamp:
      return "timestamp";
    case TypeKind::kTypeParam:
      return rep_->name;
    default:
      break;
  }
  if (rep_->params.empty()) return rep_->name;
  std::string out = rep_->name + "(";
  for (size_t i = 0; i < rep_->params.size(); ++i) {
    if (i > 0) out += ", ";
    out += rep_->params[i].Format();
  }
  return out + ")";
}

std::string Type::ToString() const {
  if (rep_->kind == TypeKind::kTypeParam) return StrCat("<", rep_->name, ">");
  if (rep_->params.empty()) return rep_->name;
  std::string out = rep_->name + "(";
  for (size_t i = 0; i < rep_->params.size(); ++i) {
    if (i > 0) out += ", ";
    out += rep_->params[i].ToString();
  }
  return out + ")";
}

}  // namespace draplane::cel::internal
