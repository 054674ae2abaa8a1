#include "cel/internal/format_library.h"

#include <cmath>
#include <utility>

#include "cel/internal/url_library.h"
#include "common/name_validation.h"
#include "common/str_cat.h"
#include "re2/re2.h"

namespace draplane::cel::internal {
namespace {

namespace names = ::draplane::name_validation;
using Args = absl::Span<const Value>;
using Messages = std::vector<std::string>;

// --- Validation functions ---

// k8s.io/apimachinery pkg/util/validation MaxLenError. Its IsDNS1123Label,
// IsDNS1123Subdomain and IsDNS1035Label say "characters" where the
// pkg/api/validate/content versions (which name_validation implements,
// and which IsLabelKey and IsLabelValue use) say "bytes"; the checks are
// otherwise the same.
std::string UtilMaxLenError(int length) {
  return StrCat("must be no more than ", length, " characters");
}

Messages WithUtilMaxLenError(Messages errs, int length) {
  if (!errs.empty() && errs[0] == names::MaxLenError(length)) {
    errs[0] = UtilMaxLenError(length);
  }
  return errs;
}

// apimachinery pkg/api/validation maskTrailingDash: a generateName prefix
// may end in '-'; the last two bytes are replaced by "a".
std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return StrCat(name.substr(0, name.size() - 2), "a");
  }
  return std::string(name);
}

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// pkg/util/validation IsDNS1035Label: ^[a-z]([-a-z0-9]*[a-z0-9])?$, at
// most 63 bytes.
Messages IsDNS1035Label(std::string_view value) {
  constexpr int kMaxLength = 63;
  Messages errs;
  if (value.size() > static_cast<size_t>(kMaxLength)) {
    errs.push_back(UtilMaxLenError(kMaxLength));
  }
  bool ok = !value.empty() && value.front() >= 'a' && value.front() <= 'z' &&
            IsLowerAlnum(value.back());
  for (size_t i = 0; ok && i < value.size(); ++i) {
    ok = IsLowerAlnum(value[i]) || value[i] == '-';
  }
  if (!ok) {
    errs.push_back(names::RegexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters "
        "or '-', start with an alphabetic character, and end with an "
        "alphanumeric character",
        "[a-z]([-a-z0-9]*[a-z0-9])?", {"my-name", "abc-123"}));
  }
  return errs;
}

Messages DNS1123Label(std::string_view s, bool prefix) {
  return WithUtilMaxLenError(names::NameIsDNSLabel(s, prefix),
                             names::kDNS1123LabelMaxLength);
}

Messages DNS1123Subdomain(std::string_view s, bool prefix) {
  return WithUtilMaxLenError(names::NameIsDNSSubdomain(s, prefix),
                             names::kDNS1123SubdomainMaxLength);
}

Messages DNS1035Label(std::string_view s, bool prefix) {
  return prefix ? IsDNS1035Label(MaskTrailingDash(s)) : IsDNS1035Label(s);
}

// kube-openapi strfmt.UUIDPattern and govalidator's Base64 pattern; RE2
// reads them as Go's regexp does.
constexpr std::string_view kUUIDPattern =
    R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$)";
constexpr std::string_view kBase64Pattern =
    R"(^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$)";
// strfmt.DateTimePattern: the time part of a date-time (lower case).
constexpr std::string_view kDateTimePattern =
    R"(^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$)";

// The patterns compiled once; RE2 matching is thread-safe.
const RE2& UUIDRegexp() {
  static const RE2* re = new RE2(std::string(kUUIDPattern));
  return *re;
}
const RE2& Base64Regexp() {
  static const RE2* re = new RE2(std::string(kBase64Pattern));
  return *re;
}
const RE2& DateTimeRegexp() {
  static const RE2* re = new RE2(std::string(kDateTimePattern));
  return *re;
}

bool IsDigit(std::string_view s, size_t i) {
  return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

// strfmt.IsDate: Go's time.Parse("2006-01-02", s) succeeds: four digits,
// '-', two digits for a month 01-12, '-', two digits for a day that exists
// in that month (Go's proleptic Gregorian calendar), nothing more.
bool IsDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s, i)) return false;
  }
  auto num = [&](size_t from, size_t n) {
    int v = 0;
    for (size_t i = from; i < from + n; ++i) v = v * 10 + (s[i] - '0');
    return v;
  };
  int year = num(0, 4), month = num(5, 2), day = num(8, 2);
  if (month < 1 || month > 12) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  int days = kDays[month - 1];
  if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) {
    days = 29;
  }
  return day >= 1 && day <= days;
}

// strfmt.IsDateTime: at least 4 bytes; lower-cased and split at 't', the
// part before the first 't' is a date and the part between the first and
// the second 't' (anything after a second 't' is ignored, as upstream
// does) matches DateTimePattern with hours <= 23, minutes and seconds <=
// 59. Go lower-cases with Unicode rules; only ASCII letters can turn into
// the characters that matter here ('t', 'z') and `.` matches one code
// point either way, so ASCII lower-casing decides alike.
bool IsDateTime(std::string_view str) {
  if (str.size() < 4) return false;
  std::string lower(str);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  std::string_view s = lower;
  size_t t1 = s.find('t');
  if (t1 == std::string_view::npos) return false;
  if (!IsDate(s.substr(0, t1))) return false;
  std::string_view time = s.substr(t1 + 1);
  time = time.substr(0, time.find('t'));
  std::string hours, minutes, seconds;
  if (!RE2::PartialMatch(std::string(time), DateTimeRegexp(), &hours, &minutes,
                         &seconds)) {
    return false;
  }
  return hours <= "23" && minutes <= "59" && seconds <= "59";
}

Messages One(bool valid, const char* message) {
  if (valid) return {};
  return {message};
}

// --- The formats ---

struct FormatSpec {
  // The constructor's name after "format." and format.named's key.
  std::string_view key;
  // Upstream's Format.Name, which equality compares.
  std::string_view name;
  // Upstream's MaxRegexSize (the cost of validate).
  uint64_t max_regex_size;
  Messages (*validate)(std::string_view);
};

// kube-openapi's estimate for the URI pattern (govalidator's URL regex).
constexpr uint64_t kURLLength = 1103;

const FormatSpec kFormats[] = {
    {"dns1123Label", "DNS1123Label", 30,
     [](std::string_view s) { return DNS1123Label(s, false); }},
    {"dns1123Subdomain", "DNS1123Subdomain", 60,
     [](std::string_view s) { return DNS1123Subdomain(s, false); }},
    {"dns1035Label", "DNS1035Label", 30,
     [](std::string_view s) { return DNS1035Label(s, false); }},
    {"qualifiedName", "QualifiedName", 60,
     [](std::string_view s) { return names::IsQualifiedName(s); }},
    {"dns1123LabelPrefix", "DNS1123LabelPrefix", 30,
     [](std::string_view s) { return DNS1123Label(s, true); }},
    {"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", 60,
     [](std::string_view s) { return DNS1123Subdomain(s, true); }},
    {"dns1035LabelPrefix", "DNS1035LabelPrefix", 30,
     [](std::string_view s) { return DNS1035Label(s, true); }},
    {"labelValue", "LabelValue", 40,
     [](std::string_view s) { return names::IsLabelValue(s); }},
    {"uri", "URI", kURLLength,
     [](std::string_view s) -> Messages {
       std::optional<std::string> error = RequestUriError(s);
       if (!error) return {};
       return {*std::move(error)};
     }},
    {"uuid", "uuid", kUUIDPattern.size(),
     [](std::string_view s) {
       return One(RE2::PartialMatch(std::string(s), UUIDRegexp()),
                  "does not match the UUID format");
     }},
    {"byte", "byte", kBase64Pattern.size(),
     [](std::string_view s) {
       return One(RE2::PartialMatch(std::string(s), Base64Regexp()),
                  "invalid base64");
     }},
    {"date", "date", kDateTimePattern.size(),
     [](std::string_view s) { return One(IsDate(s), "invalid date"); }},
    {"datetime", "datetime", kDateTimePattern.size(),
     [](std::string_view s) { return One(IsDateTime(s), "invalid datetime"); }},
};

class FormatObject final : public OpaqueValue {
 public:
  explicit FormatObject(const FormatSpec* spec) : spec_(spec) {}
  std::string_view TypeName() const override { return kNamedFormatTypeName; }
  bool Equals(const OpaqueValue& other) const override {
    return spec_->name == static_cast<const FormatObject&>(other).spec_->name;
  }
  bool KubernetesEquality() const override { return true; }
  std::string DebugString() const override {
    return StrCat("format.", spec_->key, "()");
  }
  const FormatSpec& spec() const { return *spec_; }

 private:
  const FormatSpec* spec_;
};

constexpr size_t kFormatCount = sizeof(kFormats) / sizeof(kFormats[0]);

// The shared values, one per format (immutable, so shared by every call).
const std::vector<Value>& FormatValues() {
  static const std::vector<Value>* values = [] {
    auto* v = new std::vector<Value>;
    for (const FormatSpec& spec : kFormats) {
      v->push_back(Value::Opaque(new FormatObject(&spec)));
    }
    return v;
  }();
  return *values;
}

const FormatSpec& SpecOf(const Value& format) {
  return static_cast<const FormatObject&>(format.opaque()).spec();
}

// Kubernetes CostEstimator.CallCost for validate: the regex-like cost of
// a string of the argument's size against a pattern of MaxRegexSize.
uint64_t ValidateCost(Args args, const Value&) {
  double str_cost =
      std::ceil((1.0 + static_cast<double>(CostSize(args[1]))) * 0.1);
  double regex_cost =
      std::ceil(static_cast<double>(SpecOf(args[0]).max_regex_size) * 0.25);
  return static_cast<uint64_t>(str_cost) * static_cast<uint64_t>(regex_cost);
}

}  // namespace

std::optional<Value> NamedFormatValue(std::string_view name) {
  for (size_t i = 0; i < kFormatCount; ++i) {
    if (kFormats[i].key == name) return FormatValues()[i];
  }
  return std::nullopt;
}

std::vector<std::string> ValidateWithFormat(const Value& format,
                                            std::string_view text) {
  return SpecOf(format).validate(text);
}

uint64_t FormatMaxRegexSize(const Value& format) {
  return SpecOf(format).max_regex_size;
}

absl::Status RegisterFormatFunctions(FunctionRegistry* registry) {
  std::vector<FunctionOverload> overloads;
  {
    FunctionOverload o;
    o.function = "format.named";
    o.overload_id = "format-named";
    o.params = {ArgType::Of(ValueKind::kString)};
    o.impl = [](Args args) {
      std::optional<Value> f = NamedFormatValue(args[0].string_value());
      return f ? Value::OptionalOf(*std::move(f)) : Value::OptionalNone();
    };
    overloads.push_back(std::move(o));
  }
  for (size_t i = 0; i < kFormatCount; ++i) {
    FunctionOverload o;
    o.function = StrCat("format.", kFormats[i].key);
    o.overload_id = o.function;
    Value value = FormatValues()[i];
    o.impl = [value](Args) { return value; };
    overloads.push_back(std::move(o));
  }
  {
    FunctionOverload o;
    o.function = "validate";
    o.overload_id = "format-validate";
    o.receiver_style = true;
    o.params = {ArgType::Opaque(kNamedFormatTypeName),
                ArgType::Of(ValueKind::kString)};
    o.impl = [](Args args) {
      Messages errs = ValidateWithFormat(args[0], args[1].string_value());
      if (errs.empty()) return Value::OptionalNone();
      std::vector<Value> list;
      list.reserve(errs.size());
      for (std::string& e : errs) list.push_back(Value::String(std::move(e)));
      return Value::OptionalOf(Value::List(std::move(list)));
    };
    o.cost = &ValidateCost;
    overloads.push_back(std::move(o));
  }
  for (FunctionOverload& o : overloads) {
    if (absl::Status s = registry->Register(std::move(o)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace draplane::cel::internal
