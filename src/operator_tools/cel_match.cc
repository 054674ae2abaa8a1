#include "operator_tools/cel_match.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "cel/cel.h"
#include "common/str_cat.h"

namespace draplane::operator_tools {
namespace {

struct SliceDevice {
  std::string id;  // driver/pool/device
  std::string driver;
  const api::Device* api = nullptr;
  cel::Device cel;
};

// The published value of (domain, name) on `d`, as JSON; nullopt when the
// device does not publish it. Bare names belong to the driver's domain.
std::optional<api::Json> Published(const SliceDevice& d,
                                   const cel::DeviceReference& ref) {
  auto matches = [&](const std::string& key) {
    size_t slash = key.find('/');
    std::string_view domain = slash == std::string::npos
                                  ? std::string_view(d.driver)
                                  : std::string_view(key).substr(0, slash);
    std::string_view name = slash == std::string::npos
                                ? std::string_view(key)
                                : std::string_view(key).substr(slash + 1);
    return domain == ref.domain && name == ref.name;
  };
  if (ref.kind == cel::DeviceReference::Kind::kDriver) return d.driver;
  if (ref.kind == cel::DeviceReference::Kind::kCapacity) {
    for (const auto& [key, cap] : d.api->capacity) {
      if (matches(key)) return cap.value.ToString();
    }
    return std::nullopt;
  }
  for (const auto& [key, a] : d.api->attributes) {
    if (!matches(key)) continue;
    if (a.string_value()) return *a.string_value();
    if (a.version_value()) return *a.version_value();
    if (a.int_value()) return *a.int_value();
    if (a.bool_value()) return *a.bool_value();
    return nullptr;
  }
  return std::nullopt;
}

// Names published in `domain` (attributes or capacities) by any device.
std::set<std::string> PublishedNames(const std::vector<SliceDevice>& devices,
                                     cel::DeviceReference::Kind kind,
                                     const std::string& domain) {
  std::set<std::string> out;
  for (const SliceDevice& d : devices) {
    auto add = [&](const std::string& key) {
      size_t slash = key.find('/');
      std::string dom =
          slash == std::string::npos ? d.driver : key.substr(0, slash);
      if (dom == domain) {
        out.insert(slash == std::string::npos ? key : key.substr(slash + 1));
      }
    };
    if (kind == cel::DeviceReference::Kind::kCapacity) {
      for (const auto& [key, _] : d.api->capacity) add(key);
    } else {
      for (const auto& [key, _] : d.api->attributes) add(key);
    }
  }
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] =
          std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Up to three names close to `name`, nearest first (ties by name); all
// candidates when none is close.
std::vector<std::string> Closest(const std::string& name,
                                 const std::set<std::string>& candidates) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(name, c);
    // A shared prefix or containment makes a name a better suggestion
    // than its edit distance alone says ("migProfile" -> "profile").
    std::string lower_name, lower_c;
    for (char ch : name) lower_name.push_back(std::tolower(ch));
    for (char ch : c) lower_c.push_back(std::tolower(ch));
    if (lower_name.find(lower_c) != std::string::npos ||
        lower_c.find(lower_name) != std::string::npos) {
      d = d / 2;
    }
    scored.emplace_back(d, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  size_t close = std::max<size_t>(2, name.size() / 2);
  for (size_t i = 0; i < scored.size() && out.size() < 3; ++i) {
    if (scored[i].first <= close) out.push_back(scored[i].second);
  }
  if (out.empty()) out.assign(candidates.begin(), candidates.end());
  return out;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out.append(", ");
    out.append(s);
  }
  return out;
}

std::string Show(const api::Json& v) {
  if (v.is_string()) return StrCat("'", v.get<std::string>(), "'");
  return v.dump();
}

std::string RefLabel(const cel::DeviceReference& ref) {
  if (ref.kind == cel::DeviceReference::Kind::kDriver) return "driver";
  return StrCat(ref.kind == cel::DeviceReference::Kind::kCapacity
                    ? "capacity '"
                    : "attribute '",
                ref.domain, "/", ref.name, "'");
}

// Hints for selectors that together match no device.
std::vector<std::string> Explain(const std::vector<std::string>& expressions,
                                 const std::vector<SliceDevice>& devices) {
  std::vector<cel::DeviceReference> refs;
  for (const std::string& e : expressions) {
    auto found = cel::FindDeviceReferences(e);
    if (found.ok()) refs.insert(refs.end(), found->begin(), found->end());
  }
  std::vector<std::string> hints;
  std::set<std::string> seen;
  auto add = [&](std::string h) {
    if (seen.insert(h).second) hints.push_back(std::move(h));
  };
  // Which references are published at all, and which equality
  // constraints some device satisfies on its own.
  auto published_by_any = [&](const cel::DeviceReference& r) {
    for (const SliceDevice& d : devices) {
      if (Published(d, r)) return true;
    }
    return false;
  };
  auto satisfied_by = [&](const SliceDevice& d, const cel::DeviceReference& r) {
    std::optional<api::Json> v = Published(d, r);
    return v && r.equals && *v == *r.equals;
  };
  std::vector<const cel::DeviceReference*> satisfiable;
  for (const cel::DeviceReference& r : refs) {
    if (!r.equals) continue;
    for (const SliceDevice& d : devices) {
      if (satisfied_by(d, r)) {
        satisfiable.push_back(&r);
        break;
      }
    }
  }
  // When `r` (compared with `== constant`) reads a value no candidate
  // device publishes: "<name> '<v>' is not published by any <qualifier>;
  // published values: ...". Candidates are the devices the selector's other
  // satisfiable `==` constraints leave (`self` is the constraint being
  // explained, excluded from that filter). nullopt when some candidate
  // publishes the value.
  auto value_hint =
      [&](const cel::DeviceReference& r,
          const cel::DeviceReference& self) -> std::optional<std::string> {
    std::vector<const SliceDevice*> candidates;
    std::string qualifier = "device";
    for (const SliceDevice& d : devices) {
      bool keep = true;
      for (const cel::DeviceReference* o : satisfiable) {
        if (o != &self && !satisfied_by(d, *o)) keep = false;
      }
      if (keep) candidates.push_back(&d);
    }
    for (const cel::DeviceReference* o : satisfiable) {
      if (o != &self && o->name == "productName" && o->equals->is_string()) {
        qualifier = StrCat("'", o->equals->get<std::string>(), "' device");
      }
    }
    std::set<std::string> values;
    for (const SliceDevice* d : candidates) {
      std::optional<api::Json> v = Published(*d, r);
      if (!v) continue;
      if (*v == *r.equals) return std::nullopt;
      values.insert(v->is_string() ? v->get<std::string>() : v->dump());
    }
    std::string label = r.kind == cel::DeviceReference::Kind::kCapacity
                            ? StrCat("capacity ", r.name)
                            : r.name;
    if (values.empty()) {
      return StrCat(label, " ", Show(*r.equals), " is not published by any ",
                    qualifier, "; no such device publishes ", r.name);
    }
    return StrCat(label, " ", Show(*r.equals), " is not published by any ",
                  qualifier,
                  "; published values: ", Join({values.begin(), values.end()}));
  };
  for (const cel::DeviceReference& r : refs) {
    if (r.kind == cel::DeviceReference::Kind::kDriver) {
      if (!r.equals) continue;
      std::set<std::string> drivers;
      for (const SliceDevice& d : devices) drivers.insert(d.driver);
      if (!drivers.count(r.equals->is_string() ? r.equals->get<std::string>()
                                               : "")) {
        add(StrCat("driver ", Show(*r.equals),
                   " is not published by any ResourceSlice; published "
                   "drivers: ",
                   Join({drivers.begin(), drivers.end()})));
      }
      continue;
    }
    if (!published_by_any(r)) {
      std::set<std::string> names = PublishedNames(devices, r.kind, r.domain);
      if (names.empty()) {
        std::set<std::string> domains;
        for (const SliceDevice& d : devices) domains.insert(d.driver);
        add(StrCat(RefLabel(r),
                   " is not published by any device: no device "
                   "publishes anything in domain '",
                   r.domain, "'; drivers publish their own domain (",
                   Join({domains.begin(), domains.end()}), ")"));
      } else {
        std::vector<std::string> close = Closest(r.name, names);
        add(StrCat(RefLabel(r), " is not published by any device; ",
                   close.size() <= 3 ? "closest published names: "
                                     : "published names: ",
                   Join(close)));
        // `migProfile == '3g.20gb'`: also say whether the likely intended
        // name would have the value.
        if (r.equals && close.size() <= 3) {
          cel::DeviceReference guess = r;
          guess.name = close.front();
          if (std::optional<std::string> h = value_hint(guess, r)) {
            add(StrCat("with ", close.front(), " instead: ", *h));
          }
        }
      }
      continue;
    }
    if (!r.equals) continue;
    if (std::optional<std::string> h = value_hint(r, r)) add(*std::move(h));
  }
  return hints;
}

// A hint when no device publishes the constraint's fully qualified
// attribute `name` ("domain/id"); "" otherwise.
std::string ConstraintHint(std::string_view kind, const std::string& name,
                           const std::vector<SliceDevice>& devices) {
  size_t slash = name.find('/');
  if (slash == std::string::npos) return "";
  cel::DeviceReference ref;
  ref.kind = cel::DeviceReference::Kind::kAttribute;
  ref.domain = name.substr(0, slash);
  ref.name = name.substr(slash + 1);
  for (const SliceDevice& d : devices) {
    if (Published(d, ref)) return "";
  }
  std::set<std::string> names = PublishedNames(devices, ref.kind, ref.domain);
  std::string out =
      StrCat("constraint ", kind, " '", name,
             "' is not published by any device, so no devices can satisfy it "
             "and the claim can never be allocated");
  if (!names.empty()) {
    std::vector<std::string> close = Closest(ref.name, names);
    StrAppend(&out,
              close.size() <= 3 ? "; closest published names: "
                                : "; published names: ",
              Join(close));
  }
  return out;
}

struct Selector {
  std::string label;  // "class X selector #0"
  std::string expression;
  std::shared_ptr<const cel::Program> program;
};

// Evaluates `selectors` in order against each device: the first false or
// error decides, as upstream's selectorsMatch does.
void Evaluate(const std::vector<Selector>& selectors,
              const std::vector<SliceDevice>& devices, SelectorReport* r) {
  for (const SliceDevice& d : devices) {
    DeviceMatch m;
    m.device = d.id;
    m.result = DeviceMatch::Result::kMatch;
    for (const Selector& s : selectors) {
      absl::StatusOr<bool> ok = s.program->Matches(d.cel);
      if (!ok.ok()) {
        m.result = DeviceMatch::Result::kError;
        m.detail =
            selectors.size() > 1
                ? StrCat(s.label, ": ", std::string(ok.status().message()))
                : std::string(ok.status().message());
        break;
      }
      if (!*ok) {
        m.result = DeviceMatch::Result::kNoMatch;
        if (selectors.size() > 1) m.detail = StrCat(s.label, " is false");
        break;
      }
    }
    if (m.result == DeviceMatch::Result::kMatch) ++r->matched;
    r->devices.push_back(std::move(m));
  }
}

// Compiles `selectors` of one source; false (with r->error) on failure.
// `first_index` numbers the selectors as in their object.
bool CompileAll(const std::vector<api::DeviceSelector>& selectors,
                const std::string& label_prefix, std::vector<Selector>* out,
                SelectorReport* r, size_t first_index = 0) {
  for (size_t i = 0; i < selectors.size(); ++i) {
    if (!selectors[i].cel) continue;
    Selector s;
    s.label = StrCat(label_prefix, "selector #", first_index + i);
    s.expression = selectors[i].cel->expression;
    auto program = cel::Compiler::Default().CompileSelector(s.expression);
    r->expressions.push_back(s.expression);
    if (!program.ok()) {
      r->error = StrCat(s.label, ": ", std::string(program.status().message()));
      return false;
    }
    s.program = *std::move(program);
    out->push_back(std::move(s));
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<SelectorReport>> RunCelMatch(
    const std::vector<api::Object>& objects, const CelMatchFilter& filter) {
  std::vector<SliceDevice> devices;
  std::map<std::string, const api::DeviceClass*> classes;
  struct ClaimSpec {
    std::string source;  // resourceclaim/ns/name
    std::string ns_name;
    const api::DeviceClaim* devices;
  };
  // A constraint attribute no device publishes: no set of devices can
  // satisfy it (upstream's allocator then reports the claim as
  // unsatisfiable on every node).
  std::vector<ClaimSpec> claims;
  for (const api::Object& o : objects) {
    if (const auto* s = std::get_if<api::ResourceSlice>(&o.value)) {
      for (const api::Device& d : s->spec.devices) {
        absl::StatusOr<cel::Device> cd = cel::Device::Create(s->spec.driver, d);
        std::string id =
            StrCat(s->spec.driver, "/", s->spec.pool.name, "/", d.name);
        if (!cd.ok()) {
          return absl::InvalidArgumentError(
              StrCat("device ", id, ": ", std::string(cd.status().message())));
        }
        devices.push_back(SliceDevice{id, s->spec.driver, &d, *std::move(cd)});
      }
    } else if (const auto* c = std::get_if<api::DeviceClass>(&o.value)) {
      classes[c->metadata.name] = c;
    } else if (const auto* rc = std::get_if<api::ResourceClaim>(&o.value)) {
      std::string nn = StrCat(rc->metadata.namespace_, "/", rc->metadata.name);
      claims.push_back({StrCat("resourceclaim/", nn), nn, &rc->spec.devices});
    } else if (const auto* t =
                   std::get_if<api::ResourceClaimTemplate>(&o.value)) {
      std::string nn = StrCat(t->metadata.namespace_, "/", t->metadata.name);
      claims.push_back(
          {StrCat("resourceclaimtemplate/", nn), nn, &t->spec->spec.devices});
    }
  }
  if (devices.empty()) {
    return absl::InvalidArgumentError(
        "no ResourceSlice devices in the input: give the slices with -f "
        "(kubectl get resourceslices -o yaml > slices.yaml)");
  }
  if (!filter.device_class.empty() && !classes.count(filter.device_class)) {
    return absl::NotFoundError(StrCat("deviceclass.resource.k8s.io \"",
                                      filter.device_class, "\" not found"));
  }
  bool claim_found = false;
  for (const ClaimSpec& c : claims) claim_found |= c.ns_name == filter.claim;
  if (!filter.claim.empty() && !claim_found) {
    return absl::NotFoundError(
        StrCat("no ResourceClaim or ResourceClaimTemplate \"", filter.claim,
               "\" in the input (give it as namespace/name)"));
  }

  std::vector<SelectorReport> reports;
  bool classes_wanted = filter.claim.empty();
  for (const auto& [name, cls] : classes) {
    if (!classes_wanted) break;
    if (!filter.device_class.empty() && name != filter.device_class) continue;
    for (size_t i = 0; i < cls->spec.selectors.size(); ++i) {
      SelectorReport r;
      r.source = StrCat("deviceclass/", name, " selector #", i);
      std::vector<Selector> compiled;
      if (CompileAll({cls->spec.selectors[i]}, StrCat("class ", name, " "),
                     &compiled, &r, i)) {
        Evaluate(compiled, devices, &r);
        if (r.matched == 0) r.hints = Explain(r.expressions, devices);
      }
      reports.push_back(std::move(r));
    }
  }
  bool claims_wanted = filter.device_class.empty();
  for (const ClaimSpec& c : claims) {
    if (!claims_wanted) break;
    if (!filter.claim.empty() && c.ns_name != filter.claim) continue;
    auto add_request = [&](const std::string& request_name,
                           const std::string& class_name,
                           const std::vector<api::DeviceSelector>& own) {
      SelectorReport r;
      r.source = StrCat(c.source, " request ", request_name);
      auto cls = classes.find(class_name);
      if (cls == classes.end()) {
        r.error = StrCat("deviceclass.resource.k8s.io \"", class_name,
                         "\" not found (give the DeviceClass with -f)");
        reports.push_back(std::move(r));
        return;
      }
      std::vector<Selector> compiled;
      if (CompileAll(cls->second->spec.selectors,
                     StrCat("class ", class_name, " "), &compiled, &r) &&
          CompileAll(own, "request ", &compiled, &r)) {
        Evaluate(compiled, devices, &r);
        if (r.matched == 0) r.hints = Explain(r.expressions, devices);
      }
      std::string top_request = request_name.substr(0, request_name.find('/'));
      for (const api::DeviceConstraint& k : c.devices->constraints) {
        bool applies = k.requests.empty();
        for (const std::string& name : k.requests) {
          applies |= name == top_request || name == request_name;
        }
        if (!applies) continue;
        for (const auto* attr : {&k.match_attribute, &k.distinct_attribute}) {
          if (!attr->has_value()) continue;
          std::string hint =
              ConstraintHint(attr == &k.match_attribute ? "matchAttribute"
                                                        : "distinctAttribute",
                             **attr, devices);
          if (!hint.empty()) r.hints.push_back(std::move(hint));
        }
      }
      reports.push_back(std::move(r));
    };
    for (const api::DeviceRequest& req : c.devices->requests) {
      if (req.exactly) {
        add_request(req.name, req.exactly->device_class_name,
                    req.exactly->selectors);
      }
      for (const api::DeviceSubRequest& sub : req.first_available) {
        add_request(StrCat(req.name, "/", sub.name), sub.device_class_name,
                    sub.selectors);
      }
    }
  }
  return reports;
}

namespace {

std::string_view ResultName(DeviceMatch::Result r) {
  switch (r) {
    case DeviceMatch::Result::kMatch:
      return "match";
    case DeviceMatch::Result::kNoMatch:
      return "no match";
    case DeviceMatch::Result::kError:
      return "error";
  }
  return "";
}

}  // namespace

std::string FormatCelMatchTable(const std::vector<SelectorReport>& reports) {
  std::string out;
  for (const SelectorReport& r : reports) {
    StrAppend(&out, r.source, ": ");
    if (r.error) {
      StrAppend(&out, "ERROR\n  ", *r.error, "\n\n");
      continue;
    }
    StrAppend(&out, "matches ", r.matched, " of ", r.devices.size(),
              " devices\n");
    for (const std::string& e : r.expressions) {
      StrAppend(&out, "  selector: ", e, "\n");
    }
    size_t width = 6;
    for (const DeviceMatch& m : r.devices) {
      width = std::max(width, m.device.size());
    }
    StrAppend(&out, "  ", "DEVICE", std::string(width - 6 + 2, ' '),
              "RESULT    DETAIL\n");
    for (const DeviceMatch& m : r.devices) {
      std::string_view result = ResultName(m.result);
      StrAppend(&out, "  ", m.device,
                std::string(width - m.device.size() + 2, ' '), result,
                std::string(10 - result.size(), ' '), m.detail, "\n");
    }
    bool any_error = false;
    for (const DeviceMatch& m : r.devices) {
      any_error |= m.result == DeviceMatch::Result::kError;
    }
    if (any_error) {
      StrAppend(&out,
                "  note: a runtime error aborts the whole allocation attempt "
                "for a claim using this selector (upstream behaviour); guard "
                "optional attributes with has() or .?name.orValue(...)\n");
    }
    for (const std::string& h : r.hints) StrAppend(&out, "  hint: ", h, "\n");
    out.append("\n");
  }
  return out;
}

api::Json CelMatchJson(const std::vector<SelectorReport>& reports) {
  api::Json list = api::Json::array();
  for (const SelectorReport& r : reports) {
    api::Json j;
    j["source"] = r.source;
    j["expressions"] = r.expressions;
    if (r.error) j["error"] = *r.error;
    j["matched"] = r.matched;
    api::Json devs = api::Json::array();
    for (const DeviceMatch& m : r.devices) {
      api::Json d;
      d["device"] = m.device;
      d["result"] = std::string(ResultName(m.result));
      if (!m.detail.empty()) d["detail"] = m.detail;
      devs.push_back(std::move(d));
    }
    j["devices"] = std::move(devs);
    j["hints"] = r.hints;
    list.push_back(std::move(j));
  }
  api::Json out;
  out["selectors"] = std::move(list);
  return out;
}

}  // namespace draplane::operator_tools
