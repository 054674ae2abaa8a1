#include "cel/internal/device_references.h"

#include <string_view>
#include <utility>

#include "cel/internal/dra_device.h"

namespace draplane::cel::internal {
namespace {

const std::string* ConstString(const Expr* e) {
  if (e == nullptr) return nullptr;
  const ConstExpr* c = e->As<ConstExpr>();
  if (c == nullptr) return nullptr;
  return std::get_if<std::string>(&c->value);
}

bool IsDeviceIdent(const Expr* e) {
  const IdentExpr* id = e == nullptr ? nullptr : e->As<IdentExpr>();
  return id != nullptr && id->name == kDeviceVariable;
}

// `device.attributes` / `device.capacity`: sets *kind.
bool IsDeviceMap(const Expr* e, DeviceReference::Kind* kind) {
  const SelectExpr* s = e == nullptr ? nullptr : e->As<SelectExpr>();
  if (s == nullptr || s->test_only || !IsDeviceIdent(s->operand.get())) {
    return false;
  }
  if (s->field == "attributes") {
    *kind = DeviceReference::Kind::kAttribute;
    return true;
  }
  if (s->field == "capacity") {
    *kind = DeviceReference::Kind::kCapacity;
    return true;
  }
  return false;
}

// `device.<map>['domain']` (also `[?'domain']`): the domain.
const std::string* DomainOf(const Expr* e, DeviceReference::Kind* kind) {
  const CallExpr* c = e == nullptr ? nullptr : e->As<CallExpr>();
  if (c == nullptr || c->target != nullptr || c->args.size() != 2 ||
      (c->function != op::kIndex && c->function != op::kOptIndex)) {
    return nullptr;
  }
  if (!IsDeviceMap(c->args[0].get(), kind)) return nullptr;
  return ConstString(c->args[1].get());
}

// Recognises a full reference at `e`.
std::optional<DeviceReference> ReferenceAt(const Expr& e) {
  DeviceReference ref;
  if (const SelectExpr* s = e.As<SelectExpr>()) {
    if (IsDeviceIdent(s->operand.get()) && s->field == "driver") {
      ref.kind = DeviceReference::Kind::kDriver;
      return ref;
    }
    if (const std::string* domain = DomainOf(s->operand.get(), &ref.kind)) {
      ref.domain = *domain;
      ref.name = s->field;
      return ref;
    }
    return std::nullopt;
  }
  if (const CallExpr* c = e.As<CallExpr>()) {
    // `<optional reference>.orValue(x)` reads the same attribute.
    if (c->target != nullptr && c->function == "orValue" &&
        c->args.size() == 1) {
      return ReferenceAt(*c->target);
    }
    bool index = c->function == op::kIndex || c->function == op::kOptIndex ||
                 c->function == op::kOptSelect;
    if (!index || c->target != nullptr || c->args.size() != 2) {
      return std::nullopt;
    }
    const std::string* domain = DomainOf(c->args[0].get(), &ref.kind);
    const std::string* name = ConstString(c->args[1].get());
    if (domain == nullptr || name == nullptr) return std::nullopt;
    ref.domain = *domain;
    ref.name = *name;
    return ref;
  }
  return std::nullopt;
}

class Finder {
 public:
  std::vector<DeviceReference> refs;

  void Visit(const Expr* e) {
    if (e == nullptr) return;
    if (std::optional<DeviceReference> ref = ReferenceAt(*e)) {
      refs.push_back(*std::move(ref));
      return;
    }
    if (const CallExpr* c = e->As<CallExpr>()) {
      if (c->target == nullptr && c->args.size() == 2 &&
          (c->function == op::kEquals || c->function == op::kNotEquals) &&
          VisitComparison(*c)) {
        return;
      }
      Visit(c->target.get());
      for (const ExprPtr& a : c->args) Visit(a.get());
    } else if (const SelectExpr* s = e->As<SelectExpr>()) {
      Visit(s->operand.get());
    } else if (const ListExpr* l = e->As<ListExpr>()) {
      for (const ExprPtr& x : l->elements) Visit(x.get());
    } else if (const MapExpr* m = e->As<MapExpr>()) {
      for (const MapEntry& x : m->entries) {
        Visit(x.key.get());
        Visit(x.value.get());
      }
    } else if (const StructExpr* st = e->As<StructExpr>()) {
      for (const StructField& x : st->fields) Visit(x.value.get());
    } else if (const ComprehensionExpr* cx = e->As<ComprehensionExpr>()) {
      Visit(cx->iter_range.get());
      Visit(cx->accu_init.get());
      Visit(cx->loop_condition.get());
      Visit(cx->loop_step.get());
      Visit(cx->result.get());
    }
  }

 private:
  // `ref == const` or `const == ref` (only `==`: `!=` records the
  // reference without the constant).
  bool VisitComparison(const CallExpr& c) {
    for (int side = 0; side < 2; ++side) {
      const Expr& a = *c.args[side];
      const Expr& b = *c.args[1 - side];
      std::optional<DeviceReference> ref = ReferenceAt(a);
      const ConstExpr* k = b.As<ConstExpr>();
      if (!ref || k == nullptr) continue;
      if (c.function == op::kEquals) ref->equals = k->value;
      refs.push_back(*std::move(ref));
      return true;
    }
    return false;
  }
};

}  // namespace

std::vector<DeviceReference> FindDeviceReferences(const Expr& root) {
  Finder f;
  f.Visit(&root);
  return std::move(f.refs);
}

}  // namespace draplane::cel::internal
