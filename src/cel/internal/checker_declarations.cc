#include "cel/internal/checker_declarations.h"

#include <cctype>
#include <cstdlib>
#include <unordered_map>

#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::cel::internal {
namespace {

// One row of the declaration table: function, overload id, receiver style,
// parameter types (comma-separated, receiver first) and result type, in the
// small type syntax ParseType reads: primitives by their CEL names, list(T),
// map(K, V), optional_type(T), type(T), `any` (google.protobuf.Any), a
// single upper-case letter for a type parameter, and named library types.
struct DeclRow {
  const char* function;
  const char* id;
  bool receiver_style;
  const char* params;
  const char* result;
};

// The DRA selector environment of Kubernetes 1.37 (stored expressions, all
// features), listed from cel-go's env.Functions() and sorted by function
// name; within a function the rows keep cel-go's declaration order.
// `_?._` is checked specially and the disabled declarations
// (`__not_strictly_false__`, `in`, `_in_`) are left out.
constexpr DeclRow kDeclRows[] = {
    {"!_", "logical_not", false, "bool", "bool"},
    {"-_", "negate_double", false, "double", "double"},
    {"-_", "negate_int64", false, "int", "int"},
    {"@in", "in_list", false, "A, list(A)", "bool"},
    {"@in", "in_map", false, "A, map(A, B)", "bool"},
    {"@not_strictly_false", "not_strictly_false", false, "bool", "bool"},
    {"@sortByAssociatedKeys", "list_int_sortByAssociatedKeys", true,
     "list(T), list(int)", "list(T)"},
    {"@sortByAssociatedKeys", "list_uint_sortByAssociatedKeys", true,
     "list(T), list(uint)", "list(T)"},
    {"@sortByAssociatedKeys", "list_double_sortByAssociatedKeys", true,
     "list(T), list(double)", "list(T)"},
    {"@sortByAssociatedKeys", "list_bool_sortByAssociatedKeys", true,
     "list(T), list(bool)", "list(T)"},
    {"@sortByAssociatedKeys",
     "list_google.protobuf.Duration_sortByAssociatedKeys", true,
     "list(T), list(duration)", "list(T)"},
    {"@sortByAssociatedKeys",
     "list_google.protobuf.Timestamp_sortByAssociatedKeys", true,
     "list(T), list(timestamp)", "list(T)"},
    {"@sortByAssociatedKeys", "list_string_sortByAssociatedKeys", true,
     "list(T), list(string)", "list(T)"},
    {"@sortByAssociatedKeys", "list_bytes_sortByAssociatedKeys", true,
     "list(T), list(bytes)", "list(T)"},
    {"_!=_", "not_equals", false, "A, A", "bool"},
    {"_%_", "modulo_int64", false, "int, int", "int"},
    {"_%_", "modulo_uint64", false, "uint, uint", "uint"},
    {"_&&_", "logical_and", false, "bool, bool", "bool"},
    {"_*_", "multiply_double", false, "double, double", "double"},
    {"_*_", "multiply_int64", false, "int, int", "int"},
    {"_*_", "multiply_uint64", false, "uint, uint", "uint"},
    {"_+_", "add_bytes", false, "bytes, bytes", "bytes"},
    {"_+_", "add_double", false, "double, double", "double"},
    {"_+_", "add_duration_duration", false, "duration, duration", "duration"},
    {"_+_", "add_duration_timestamp", false, "duration, timestamp",
     "timestamp"},
    {"_+_", "add_timestamp_duration", false, "timestamp, duration",
     "timestamp"},
    {"_+_", "add_int64", false, "int, int", "int"},
    {"_+_", "add_list", false, "list(A), list(A)", "list(A)"},
    {"_+_", "add_string", false, "string, string", "string"},
    {"_+_", "add_uint64", false, "uint, uint", "uint"},
    {"_-_", "subtract_double", false, "double, double", "double"},
    {"_-_", "subtract_duration_duration", false, "duration, duration",
     "duration"},
    {"_-_", "subtract_int64", false, "int, int", "int"},
    {"_-_", "subtract_timestamp_duration", false, "timestamp, duration",
     "timestamp"},
    {"_-_", "subtract_timestamp_timestamp", false, "timestamp, timestamp",
     "duration"},
    {"_-_", "subtract_uint64", false, "uint, uint", "uint"},
    {"_/_", "divide_double", false, "double, double", "double"},
    {"_/_", "divide_int64", false, "int, int", "int"},
    {"_/_", "divide_uint64", false, "uint, uint", "uint"},
    {"_<=_", "less_equals_bool", false, "bool, bool", "bool"},
    {"_<=_", "less_equals_int64", false, "int, int", "bool"},
    {"_<=_", "less_equals_int64_double", false, "int, double", "bool"},
    {"_<=_", "less_equals_int64_uint64", false, "int, uint", "bool"},
    {"_<=_", "less_equals_uint64", false, "uint, uint", "bool"},
    {"_<=_", "less_equals_uint64_double", false, "uint, double", "bool"},
    {"_<=_", "less_equals_uint64_int64", false, "uint, int", "bool"},
    {"_<=_", "less_equals_double", false, "double, double", "bool"},
    {"_<=_", "less_equals_double_int64", false, "double, int", "bool"},
    {"_<=_", "less_equals_double_uint64", false, "double, uint", "bool"},
    {"_<=_", "less_equals_string", false, "string, string", "bool"},
    {"_<=_", "less_equals_bytes", false, "bytes, bytes", "bool"},
    {"_<=_", "less_equals_timestamp", false, "timestamp, timestamp", "bool"},
    {"_<=_", "less_equals_duration", false, "duration, duration", "bool"},
    {"_<_", "less_bool", false, "bool, bool", "bool"},
    {"_<_", "less_int64", false, "int, int", "bool"},
    {"_<_", "less_int64_double", false, "int, double", "bool"},
    {"_<_", "less_int64_uint64", false, "int, uint", "bool"},
    {"_<_", "less_uint64", false, "uint, uint", "bool"},
    {"_<_", "less_uint64_double", false, "uint, double", "bool"},
    {"_<_", "less_uint64_int64", false, "uint, int", "bool"},
    {"_<_", "less_double", false, "double, double", "bool"},
    {"_<_", "less_double_int64", false, "double, int", "bool"},
    {"_<_", "less_double_uint64", false, "double, uint", "bool"},
    {"_<_", "less_string", false, "string, string", "bool"},
    {"_<_", "less_bytes", false, "bytes, bytes", "bool"},
    {"_<_", "less_timestamp", false, "timestamp, timestamp", "bool"},
    {"_<_", "less_duration", false, "duration, duration", "bool"},
    {"_==_", "equals", false, "A, A", "bool"},
    {"_>=_", "greater_equals_bool", false, "bool, bool", "bool"},
    {"_>=_", "greater_equals_int64", false, "int, int", "bool"},
    {"_>=_", "greater_equals_int64_double", false, "int, double", "bool"},
    {"_>=_", "greater_equals_int64_uint64", false, "int, uint", "bool"},
    {"_>=_", "greater_equals_uint64", false, "uint, uint", "bool"},
    {"_>=_", "greater_equals_uint64_double", false, "uint, double", "bool"},
    {"_>=_", "greater_equals_uint64_int64", false, "uint, int", "bool"},
    {"_>=_", "greater_equals_double", false, "double, double", "bool"},
    {"_>=_", "greater_equals_double_int64", false, "double, int", "bool"},
    {"_>=_", "greater_equals_double_uint64", false, "double, uint", "bool"},
    {"_>=_", "greater_equals_string", false, "string, string", "bool"},
    {"_>=_", "greater_equals_bytes", false, "bytes, bytes", "bool"},
    {"_>=_", "greater_equals_timestamp", false, "timestamp, timestamp", "bool"},
    {"_>=_", "greater_equals_duration", false, "duration, duration", "bool"},
    {"_>_", "greater_bool", false, "bool, bool", "bool"},
    {"_>_", "greater_int64", false, "int, int", "bool"},
    {"_>_", "greater_int64_double", false, "int, double", "bool"},
    {"_>_", "greater_int64_uint64", false, "int, uint", "bool"},
    {"_>_", "greater_uint64", false, "uint, uint", "bool"},
    {"_>_", "greater_uint64_double", false, "uint, double", "bool"},
    {"_>_", "greater_uint64_int64", false, "uint, int", "bool"},
    {"_>_", "greater_double", false, "double, double", "bool"},
    {"_>_", "greater_double_int64", false, "double, int", "bool"},
    {"_>_", "greater_double_uint64", false, "double, uint", "bool"},
    {"_>_", "greater_string", false, "string, string", "bool"},
    {"_>_", "greater_bytes", false, "bytes, bytes", "bool"},
    {"_>_", "greater_timestamp", false, "timestamp, timestamp", "bool"},
    {"_>_", "greater_duration", false, "duration, duration", "bool"},
    {"_?_:_", "conditional", false, "bool, A, A", "A"},
    {"_[?_]", "list_optindex_optional_int", false, "list(V), int",
     "optional_type(V)"},
    {"_[?_]", "optional_list_optindex_optional_int", false,
     "optional_type(list(V)), int", "optional_type(V)"},
    {"_[?_]", "map_optindex_optional_value", false, "map(K, V), K",
     "optional_type(V)"},
    {"_[?_]", "optional_map_optindex_optional_value", false,
     "optional_type(map(K, V)), K", "optional_type(V)"},
    {"_[_]", "index_list", false, "list(A), int", "A"},
    {"_[_]", "index_map", false, "map(A, B), A", "B"},
    {"_[_]", "optional_list_index_int", false, "optional_type(list(V)), int",
     "optional_type(V)"},
    {"_[_]", "optional_map_index_value", false, "optional_type(map(K, V)), K",
     "optional_type(V)"},
    {"_||_", "logical_or", false, "bool, bool", "bool"},
    {"add", "quantity_add", true, "kubernetes.Quantity, kubernetes.Quantity",
     "kubernetes.Quantity"},
    {"add", "quantity_add_int", true, "kubernetes.Quantity, int",
     "kubernetes.Quantity"},
    {"allowed", "decision_allowed", true, "kubernetes.authorization.Decision",
     "bool"},
    {"asApproximateFloat", "quantity_get_float", true, "kubernetes.Quantity",
     "double"},
    {"asInteger", "quantity_get_int", true, "kubernetes.Quantity", "int"},
    {"bool", "bool_to_bool", false, "bool", "bool"},
    {"bool", "string_to_bool", false, "string", "bool"},
    {"bytes", "bytes_to_bytes", false, "bytes", "bytes"},
    {"bytes", "string_to_bytes", false, "string", "bytes"},
    {"cel.@mapInsert", "@mapInsert_map_key_value", false, "map(K, V), K, V",
     "map(K, V)"},
    {"cel.@mapInsert", "@mapInsert_map_map", false, "map(K, V), map(K, V)",
     "map(K, V)"},
    {"charAt", "string_char_at_int", true, "string, int", "string"},
    {"check", "pathcheck_check", true,
     "kubernetes.authorization.PathCheck, string",
     "kubernetes.authorization.Decision"},
    {"check", "resourcecheck_check", true,
     "kubernetes.authorization.ResourceCheck, string",
     "kubernetes.authorization.Decision"},
    {"cidr", "string_to_cidr", false, "string", "net.CIDR"},
    {"compareTo", "quantity_compare_to", true,
     "kubernetes.Quantity, kubernetes.Quantity", "int"},
    {"compareTo", "semver_compare_to", true,
     "kubernetes.Semver, kubernetes.Semver", "int"},
    {"contains", "contains_string", true, "string, string", "bool"},
    {"containsCIDR", "cidr_contains_cidr_string", true, "net.CIDR, string",
     "bool"},
    {"containsCIDR", "cidr_contains_cidr", true, "net.CIDR, net.CIDR", "bool"},
    {"containsIP", "cidr_contains_ip_string", true, "net.CIDR, string", "bool"},
    {"containsIP", "cidr_contains_ip_ip", true, "net.CIDR, net.IP", "bool"},
    {"distinct", "list_distinct", true, "list(T)", "list(T)"},
    {"double", "double_to_double", false, "double", "double"},
    {"double", "int64_to_double", false, "int", "double"},
    {"double", "string_to_double", false, "string", "double"},
    {"double", "uint64_to_double", false, "uint", "double"},
    {"duration", "duration_to_duration", false, "duration", "duration"},
    {"duration", "string_to_duration", false, "string", "duration"},
    {"dyn", "to_dyn", false, "A", "dyn"},
    {"endsWith", "ends_with_string", true, "string, string", "bool"},
    {"error", "decision_error", true, "kubernetes.authorization.Decision",
     "string"},
    {"errored", "decision_errored", true, "kubernetes.authorization.Decision",
     "bool"},
    {"family", "ip_family", true, "net.IP", "int"},
    {"fieldSelector", "authorizer_fieldselector", true,
     "kubernetes.authorization.ResourceCheck, string",
     "kubernetes.authorization.ResourceCheck"},
    {"find", "string_find_string", true, "string, string", "string"},
    {"findAll", "string_find_all_string", true, "string, string",
     "list(string)"},
    {"findAll", "string_find_all_string_int", true, "string, string, int",
     "list(string)"},
    {"first", "list_first", true, "list(V)", "optional_type(V)"},
    {"flatten", "list_flatten", true, "list(list(T))", "list(T)"},
    {"flatten", "list_flatten_int", true, "list(dyn), int", "list(dyn)"},
    {"format", "string_format", true, "string, list(dyn)", "string"},
    {"format.byte", "format.byte", false, "", "kubernetes.NamedFormat"},
    {"format.date", "format.date", false, "", "kubernetes.NamedFormat"},
    {"format.datetime", "format.datetime", false, "", "kubernetes.NamedFormat"},
    {"format.dns1035Label", "format.dns1035Label", false, "",
     "kubernetes.NamedFormat"},
    {"format.dns1035LabelPrefix", "format.dns1035LabelPrefix", false, "",
     "kubernetes.NamedFormat"},
    {"format.dns1123Label", "format.dns1123Label", false, "",
     "kubernetes.NamedFormat"},
    {"format.dns1123LabelPrefix", "format.dns1123LabelPrefix", false, "",
     "kubernetes.NamedFormat"},
    {"format.dns1123Subdomain", "format.dns1123Subdomain", false, "",
     "kubernetes.NamedFormat"},
    {"format.dns1123SubdomainPrefix", "format.dns1123SubdomainPrefix", false,
     "", "kubernetes.NamedFormat"},
    {"format.labelValue", "format.labelValue", false, "",
     "kubernetes.NamedFormat"},
    {"format.named", "format-named", false, "string",
     "optional_type(kubernetes.NamedFormat)"},
    {"format.qualifiedName", "format.qualifiedName", false, "",
     "kubernetes.NamedFormat"},
    {"format.uri", "format.uri", false, "", "kubernetes.NamedFormat"},
    {"format.uuid", "format.uuid", false, "", "kubernetes.NamedFormat"},
    {"getDate", "timestamp_to_day_of_month_1_based", true, "timestamp", "int"},
    {"getDate", "timestamp_to_day_of_month_1_based_with_tz", true,
     "timestamp, string", "int"},
    {"getDayOfMonth", "timestamp_to_day_of_month", true, "timestamp", "int"},
    {"getDayOfMonth", "timestamp_to_day_of_month_with_tz", true,
     "timestamp, string", "int"},
    {"getDayOfWeek", "timestamp_to_day_of_week", true, "timestamp", "int"},
    {"getDayOfWeek", "timestamp_to_day_of_week_with_tz", true,
     "timestamp, string", "int"},
    {"getDayOfYear", "timestamp_to_day_of_year", true, "timestamp", "int"},
    {"getDayOfYear", "timestamp_to_day_of_year_with_tz", true,
     "timestamp, string", "int"},
    {"getEscapedPath", "url_get_escaped_path", true, "kubernetes.URL",
     "string"},
    {"getFullYear", "timestamp_to_year", true, "timestamp", "int"},
    {"getFullYear", "timestamp_to_year_with_tz", true, "timestamp, string",
     "int"},
    {"getHost", "url_get_host", true, "kubernetes.URL", "string"},
    {"getHostname", "url_get_hostname", true, "kubernetes.URL", "string"},
    {"getHours", "timestamp_to_hours", true, "timestamp", "int"},
    {"getHours", "timestamp_to_hours_with_tz", true, "timestamp, string",
     "int"},
    {"getHours", "duration_to_hours", true, "duration", "int"},
    {"getMilliseconds", "timestamp_to_milliseconds", true, "timestamp", "int"},
    {"getMilliseconds", "timestamp_to_milliseconds_with_tz", true,
     "timestamp, string", "int"},
    {"getMilliseconds", "duration_to_milliseconds", true, "duration", "int"},
    {"getMinutes", "timestamp_to_minutes", true, "timestamp", "int"},
    {"getMinutes", "timestamp_to_minutes_with_tz", true, "timestamp, string",
     "int"},
    {"getMinutes", "duration_to_minutes", true, "duration", "int"},
    {"getMonth", "timestamp_to_month", true, "timestamp", "int"},
    {"getMonth", "timestamp_to_month_with_tz", true, "timestamp, string",
     "int"},
    {"getPort", "url_get_port", true, "kubernetes.URL", "string"},
    {"getQuery", "url_get_query", true, "kubernetes.URL",
     "map(string, list(string))"},
    {"getScheme", "url_get_scheme", true, "kubernetes.URL", "string"},
    {"getSeconds", "timestamp_to_seconds", true, "timestamp", "int"},
    {"getSeconds", "timestamp_to_seconds_tz", true, "timestamp, string", "int"},
    {"getSeconds", "duration_to_seconds", true, "duration", "int"},
    {"group", "authorizer_group", true,
     "kubernetes.authorization.Authorizer, string",
     "kubernetes.authorization.GroupCheck"},
    {"hasValue", "optional_hasValue", true, "optional_type(V)", "bool"},
    {"includes", "list_includes_dyn_dyn", true, "dyn, dyn", "bool"},
    {"indexOf", "string_index_of_string", true, "string, string", "int"},
    {"indexOf", "string_index_of_string_int", true, "string, string, int",
     "int"},
    {"indexOf", "list_a_index_of_int", true, "list(A), A", "int"},
    {"int", "int64_to_int64", false, "int", "int"},
    {"int", "double_to_int64", false, "double", "int"},
    {"int", "duration_to_int64", false, "duration", "int"},
    {"int", "string_to_int64", false, "string", "int"},
    {"int", "timestamp_to_int64", false, "timestamp", "int"},
    {"int", "uint64_to_int64", false, "uint", "int"},
    {"ip", "string_to_ip", false, "string", "net.IP"},
    {"ip", "cidr_ip", true, "net.CIDR", "net.IP"},
    {"ip.isCanonical", "ip_is_canonical", false, "string", "bool"},
    {"isCIDR", "is_cidr", false, "string", "bool"},
    {"isGlobalUnicast", "ip_is_global_unicast", true, "net.IP", "bool"},
    {"isGreaterThan", "quantity_is_greater_than", true,
     "kubernetes.Quantity, kubernetes.Quantity", "bool"},
    {"isGreaterThan", "semver_is_greater_than", true,
     "kubernetes.Semver, kubernetes.Semver", "bool"},
    {"isIP", "is_ip", false, "string", "bool"},
    {"isInteger", "quantity_is_integer", true, "kubernetes.Quantity", "bool"},
    {"isLessThan", "quantity_is_less_than", true,
     "kubernetes.Quantity, kubernetes.Quantity", "bool"},
    {"isLessThan", "semver_is_less_than", true,
     "kubernetes.Semver, kubernetes.Semver", "bool"},
    {"isLinkLocalMulticast", "ip_is_link_local_multicast", true, "net.IP",
     "bool"},
    {"isLinkLocalUnicast", "ip_is_link_local_unicast", true, "net.IP", "bool"},
    {"isLoopback", "ip_is_loopback", true, "net.IP", "bool"},
    {"isQuantity", "is_quantity_string", false, "string", "bool"},
    {"isSemver", "is_semver_string", false, "string", "bool"},
    {"isSemver", "is_semver_string_bool", false, "string, bool", "bool"},
    {"isSorted", "list_int_is_sorted_bool", true, "list(int)", "bool"},
    {"isSorted", "list_uint_is_sorted_bool", true, "list(uint)", "bool"},
    {"isSorted", "list_double_is_sorted_bool", true, "list(double)", "bool"},
    {"isSorted", "list_bool_is_sorted_bool", true, "list(bool)", "bool"},
    {"isSorted", "list_duration_is_sorted_bool", true, "list(duration)",
     "bool"},
    {"isSorted", "list_timestamp_is_sorted_bool", true, "list(timestamp)",
     "bool"},
    {"isSorted", "list_string_is_sorted_bool", true, "list(string)", "bool"},
    {"isSorted", "list_bytes_is_sorted_bool", true, "list(bytes)", "bool"},
    {"isURL", "is_url_string", false, "string", "bool"},
    {"isUnspecified", "ip_is_unspecified", true, "net.IP", "bool"},
    {"join", "list_join", true, "list(string)", "string"},
    {"join", "list_join_string", true, "list(string), string", "string"},
    {"labelSelector", "authorizer_labelselector", true,
     "kubernetes.authorization.ResourceCheck, string",
     "kubernetes.authorization.ResourceCheck"},
    {"last", "list_last", true, "list(V)", "optional_type(V)"},
    {"lastIndexOf", "string_last_index_of_string", true, "string, string",
     "int"},
    {"lastIndexOf", "string_last_index_of_string_int", true,
     "string, string, int", "int"},
    {"lastIndexOf", "list_a_last_index_of_int", true, "list(A), A", "int"},
    {"lists.range", "lists_range", false, "int", "list(int)"},
    {"lowerAscii", "string_lower_ascii", true, "string", "string"},
    {"major", "semver_major", true, "kubernetes.Semver", "int"},
    {"masked", "cidr_masked", true, "net.CIDR", "net.CIDR"},
    {"matches", "matches", false, "string, string", "bool"},
    {"matches", "matches_string", true, "string, string", "bool"},
    {"max", "list_int_max_int", true, "list(int)", "int"},
    {"max", "list_uint_max_uint", true, "list(uint)", "uint"},
    {"max", "list_double_max_double", true, "list(double)", "double"},
    {"max", "list_bool_max_bool", true, "list(bool)", "bool"},
    {"max", "list_duration_max_duration", true, "list(duration)", "duration"},
    {"max", "list_timestamp_max_timestamp", true, "list(timestamp)",
     "timestamp"},
    {"max", "list_string_max_string", true, "list(string)", "string"},
    {"max", "list_bytes_max_bytes", true, "list(bytes)", "bytes"},
    {"min", "list_int_min_int", true, "list(int)", "int"},
    {"min", "list_uint_min_uint", true, "list(uint)", "uint"},
    {"min", "list_double_min_double", true, "list(double)", "double"},
    {"min", "list_bool_min_bool", true, "list(bool)", "bool"},
    {"min", "list_duration_min_duration", true, "list(duration)", "duration"},
    {"min", "list_timestamp_min_timestamp", true, "list(timestamp)",
     "timestamp"},
    {"min", "list_string_min_string", true, "list(string)", "string"},
    {"min", "list_bytes_min_bytes", true, "list(bytes)", "bytes"},
    {"minor", "semver_minor", true, "kubernetes.Semver", "int"},
    {"name", "resourcecheck_name", true,
     "kubernetes.authorization.ResourceCheck, string",
     "kubernetes.authorization.ResourceCheck"},
    {"namespace", "resourcecheck_namespace", true,
     "kubernetes.authorization.ResourceCheck, string",
     "kubernetes.authorization.ResourceCheck"},
    {"optional.none", "optional_none", false, "", "optional_type(V)"},
    {"optional.of", "optional_of", false, "V", "optional_type(V)"},
    {"optional.ofNonZeroValue", "optional_ofNonZeroValue", false, "V",
     "optional_type(V)"},
    {"optional.unwrap", "optional_unwrap", false, "list(optional_type(V))",
     "list(V)"},
    {"or", "optional_or_optional", true, "optional_type(V), optional_type(V)",
     "optional_type(V)"},
    {"orValue", "optional_orValue_value", true, "optional_type(V), V", "V"},
    {"patch", "semver_patch", true, "kubernetes.Semver", "int"},
    {"path", "authorizer_path", true,
     "kubernetes.authorization.Authorizer, string",
     "kubernetes.authorization.PathCheck"},
    {"prefixLength", "cidr_prefix_length", true, "net.CIDR", "int"},
    {"quantity", "string_to_quantity", false, "string", "kubernetes.Quantity"},
    {"reason", "decision_reason", true, "kubernetes.authorization.Decision",
     "string"},
    {"replace", "string_replace_string_string", true, "string, string, string",
     "string"},
    {"replace", "string_replace_string_string_int", true,
     "string, string, string, int", "string"},
    {"resource", "groupcheck_resource", true,
     "kubernetes.authorization.GroupCheck, string",
     "kubernetes.authorization.ResourceCheck"},
    {"reverse", "list_reverse", true, "list(T)", "list(T)"},
    {"semver", "string_to_semver", false, "string", "kubernetes.Semver"},
    {"semver", "string_bool_to_semver", false, "string, bool",
     "kubernetes.Semver"},
    {"serviceAccount", "authorizer_serviceaccount", true,
     "kubernetes.authorization.Authorizer, string, string",
     "kubernetes.authorization.Authorizer"},
    {"sets.contains", "list_sets_contains_list", false, "list(T), list(T)",
     "bool"},
    {"sets.equivalent", "list_sets_equivalent_list", false, "list(T), list(T)",
     "bool"},
    {"sets.intersects", "list_sets_intersects_list", false, "list(T), list(T)",
     "bool"},
    {"sign", "quantity_sign", false, "kubernetes.Quantity", "int"},
    {"size", "size_bytes", false, "bytes", "int"},
    {"size", "bytes_size", true, "bytes", "int"},
    {"size", "size_list", false, "list(A)", "int"},
    {"size", "list_size", true, "list(A)", "int"},
    {"size", "size_map", false, "map(A, B)", "int"},
    {"size", "map_size", true, "map(A, B)", "int"},
    {"size", "size_string", false, "string", "int"},
    {"size", "string_size", true, "string", "int"},
    {"slice", "list_slice", true, "list(T), int, int", "list(T)"},
    {"sort", "list_int_sort", true, "list(int)", "list(int)"},
    {"sort", "list_uint_sort", true, "list(uint)", "list(uint)"},
    {"sort", "list_double_sort", true, "list(double)", "list(double)"},
    {"sort", "list_bool_sort", true, "list(bool)", "list(bool)"},
    {"sort", "list_google.protobuf.Duration_sort", true, "list(duration)",
     "list(duration)"},
    {"sort", "list_google.protobuf.Timestamp_sort", true, "list(timestamp)",
     "list(timestamp)"},
    {"sort", "list_string_sort", true, "list(string)", "list(string)"},
    {"sort", "list_bytes_sort", true, "list(bytes)", "list(bytes)"},
    {"split", "string_split_string", true, "string, string", "list(string)"},
    {"split", "string_split_string_int", true, "string, string, int",
     "list(string)"},
    {"startsWith", "starts_with_string", true, "string, string", "bool"},
    {"string", "string_to_string", false, "string", "string"},
    {"string", "bool_to_string", false, "bool", "string"},
    {"string", "bytes_to_string", false, "bytes", "string"},
    {"string", "double_to_string", false, "double", "string"},
    {"string", "duration_to_string", false, "duration", "string"},
    {"string", "int64_to_string", false, "int", "string"},
    {"string", "timestamp_to_string", false, "timestamp", "string"},
    {"string", "uint64_to_string", false, "uint", "string"},
    {"string", "ip_to_string", false, "net.IP", "string"},
    {"string", "cidr_to_string", false, "net.CIDR", "string"},
    {"strings.quote", "strings_quote", false, "string", "string"},
    {"sub", "quantity_sub", true, "kubernetes.Quantity, kubernetes.Quantity",
     "kubernetes.Quantity"},
    {"sub", "quantity_sub_int", true, "kubernetes.Quantity, int",
     "kubernetes.Quantity"},
    {"subresource", "resourcecheck_subresource", true,
     "kubernetes.authorization.ResourceCheck, string",
     "kubernetes.authorization.ResourceCheck"},
    {"substring", "string_substring_int", true, "string, int", "string"},
    {"substring", "string_substring_int_int", true, "string, int, int",
     "string"},
    {"sum", "list_int_sum_int", true, "list(int)", "int"},
    {"sum", "list_uint_sum_uint", true, "list(uint)", "uint"},
    {"sum", "list_double_sum_double", true, "list(double)", "double"},
    {"sum", "list_duration_sum_duration", true, "list(duration)", "duration"},
    {"timestamp", "timestamp_to_timestamp", false, "timestamp", "timestamp"},
    {"timestamp", "int64_to_timestamp", false, "int", "timestamp"},
    {"timestamp", "string_to_timestamp", false, "string", "timestamp"},
    {"trim", "string_trim", true, "string", "string"},
    {"type", "type", false, "A", "type(A)"},
    {"uint", "uint64_to_uint64", false, "uint", "uint"},
    {"uint", "double_to_uint64", false, "double", "uint"},
    {"uint", "int64_to_uint64", false, "int", "uint"},
    {"uint", "string_to_uint64", false, "string", "uint"},
    {"unwrapOpt", "optional_unwrapOpt", true, "list(optional_type(V))",
     "list(V)"},
    {"upperAscii", "string_upper_ascii", true, "string", "string"},
    {"url", "string_to_url", false, "string", "kubernetes.URL"},
    {"validate", "format-validate", true, "kubernetes.NamedFormat, string",
     "optional_type(list(string))"},
    {"value", "optional_value", true, "optional_type(V)", "V"},
};

// Ids under which draplane's runtime registers overloads that cel-go names
// differently: runtime id -> cel-go id.
constexpr std::pair<const char*, const char*> kOverloadIdAliases[] = {
    {"timestamp_to_seconds_with_tz", "timestamp_to_seconds_tz"},
    {"cel_@mapInsert_map_key_value", "@mapInsert_map_key_value"},
    {"cel_@mapInsert_map_map", "@mapInsert_map_map"},
};

// Object types Kubernetes declares with cel.ObjectType (struct kind without
// field information in the type provider); every other dotted name in the
// table is an abstract (opaque) type.
bool IsObjectTypeName(std::string_view name) {
  return name.substr(0, 11) == "kubernetes.";
}

class TypeParser {
 public:
  explicit TypeParser(std::string_view text) : text_(text) {}

  // Parses a comma-separated list of types (possibly empty).
  std::vector<Type> ParseList() {
    std::vector<Type> out;
    SkipSpace();
    if (pos_ == text_.size()) return out;
    out.push_back(ParseOne());
    SkipSpace();
    while (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      out.push_back(ParseOne());
      SkipSpace();
    }
    return out;
  }

  Type ParseSingle() {
    Type t = ParseOne();
    SkipSpace();
    Expect(pos_ == text_.size());
    return t;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  void Expect(bool ok) {
    if (!ok) {
      // The table is static data; a malformed row is a programming error.
      logging::Fatal("Bad type spec in the checker's declarations",
                     {{"spec", text_}});
    }
  }
  Type ParseOne() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '_' || text_[pos_] == '.')) {
      ++pos_;
    }
    std::string name(text_.substr(start, pos_ - start));
    Expect(!name.empty());
    std::vector<Type> params;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      ++pos_;
      params = ParseList();
      SkipSpace();
      Expect(pos_ < text_.size() && text_[pos_] == ')');
      ++pos_;
    }
    if (name.size() == 1 && std::isupper(static_cast<unsigned char>(name[0]))) {
      return Type::Param(name);
    }
    if (name == "list") {
      Expect(params.size() == 1);
      return Type::List(params[0]);
    }
    if (name == "map") {
      Expect(params.size() == 2);
      return Type::Map(params[0], params[1]);
    }
    if (name == "type") {
      return params.empty() ? Type::TypeType() : Type::TypeOf(params[0]);
    }
    if (name == "optional_type") {
      Expect(params.size() == 1);
      return Type::Optional(params[0]);
    }
    Expect(params.empty() || name.find('.') != std::string::npos);
    if (name == "dyn") return Type::Dyn();
    if (name == "any") return Type::Any();
    if (name == "null_type") return Type::Null();
    if (name == "bool") return Type::Bool();
    if (name == "int") return Type::Int();
    if (name == "uint") return Type::Uint();
    if (name == "double") return Type::Double();
    if (name == "string") return Type::String();
    if (name == "bytes") return Type::Bytes();
    if (name == "timestamp") return Type::Timestamp();
    if (name == "duration") return Type::Duration();
    Expect(name.find('.') != std::string::npos);
    if (IsObjectTypeName(name)) return Type::Struct(name);
    return Type::Opaque(name, std::move(params));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

void CollectTypeParams(const Type& t, std::vector<std::string>* names) {
  if (t.kind() == TypeKind::kTypeParam) {
    for (const std::string& n : *names) {
      if (n == t.name()) return;
    }
    names->push_back(t.name());
  }
  for (const Type& p : t.params()) CollectTypeParams(p, names);
}

struct DeclIndex {
  std::vector<OverloadDecl> decls;
  std::unordered_map<std::string, size_t> by_id;
};

const DeclIndex& Index() {
  static const DeclIndex* index = [] {
    auto* idx = new DeclIndex;
    for (const DeclRow& row : kDeclRows) {
      OverloadDecl d;
      d.function = row.function;
      d.id = row.id;
      d.receiver_style = row.receiver_style;
      d.params = TypeParser(row.params).ParseList();
      d.result = TypeParser(row.result).ParseSingle();
      CollectTypeParams(d.result, &d.type_params);
      for (const Type& p : d.params) CollectTypeParams(p, &d.type_params);
      idx->by_id.emplace(d.id, idx->decls.size());
      idx->decls.push_back(std::move(d));
    }
    return idx;
  }();
  return *index;
}

}  // namespace

const std::vector<OverloadDecl>& AllOverloadDecls() { return Index().decls; }

const OverloadDecl* FindOverloadDecl(std::string_view function,
                                     std::string_view id) {
  for (const auto& [runtime_id, cel_id] : kOverloadIdAliases) {
    if (id == runtime_id) {
      id = cel_id;
      break;
    }
  }
  const DeclIndex& idx = Index();
  auto it = idx.by_id.find(std::string(id));
  if (it == idx.by_id.end()) return nullptr;
  const OverloadDecl& d = idx.decls[it->second];
  return d.function == function ? &d : nullptr;
}

bool IsInterpreterBuiltin(std::string_view function) {
  for (const char* name :
       {"_==_", "_!=_", "_&&_", "_||_", "_?_:_", "_[_]", "_[?_]", "_?._"}) {
    if (function == name) return true;
  }
  return false;
}

bool IsRuntimeOnlyOverload(std::string_view function, std::string_view id) {
  if (function == "__not_strictly_false__" || function == "in" ||
      function == "_in_") {
    return true;
  }
  for (const char* opaque_ordering :
       {"less_opaque", "less_equals_opaque", "greater_opaque",
        "greater_equals_opaque"}) {
    if (id == opaque_ordering) return true;
  }
  return false;
}

std::vector<std::pair<std::string, Type>> TypeIdentifiers(
    const FunctionRegistry& functions) {
  // cel-go stdlib.Types() plus the protobuf well-known types its default
  // type registry resolves (the wrapper types are not modelled).
  std::vector<std::pair<std::string, Type>> out = {
      {"bool", Type::TypeOf(Type::Bool())},
      {"bytes", Type::TypeOf(Type::Bytes())},
      {"double", Type::TypeOf(Type::Double())},
      {"google.protobuf.Duration", Type::TypeOf(Type::Duration())},
      {"int", Type::TypeOf(Type::Int())},
      {"list", Type::TypeOf(Type::List(Type::Param("A")))},
      {"map", Type::TypeOf(Type::Map(Type::Param("A"), Type::Param("B")))},
      {"null_type", Type::TypeOf(Type::Null())},
      {"string", Type::TypeOf(Type::String())},
      {"google.protobuf.Timestamp", Type::TypeOf(Type::Timestamp())},
      {"type", Type::TypeOf(Type::TypeType())},
      {"uint", Type::TypeOf(Type::Uint())},
      {"google.protobuf.Any", Type::TypeOf(Type::Any())},
      {"google.protobuf.Value", Type::TypeOf(Type::Dyn())},
      {"google.protobuf.ListValue", Type::TypeOf(Type::List(Type::Dyn()))},
      {"google.protobuf.Struct",
       Type::TypeOf(Type::Map(Type::String(), Type::Dyn()))},
  };
  if (functions.HasFunction("optional.of")) {
    out.push_back(
        {"optional_type", Type::TypeOf(Type::Optional(Type::Param("V")))});
  }
  if (functions.HasFunction("ip")) {
    out.push_back({"net.IP", Type::TypeOf(Type::Opaque("net.IP"))});
  }
  if (functions.HasFunction("cidr")) {
    out.push_back({"net.CIDR", Type::TypeOf(Type::Opaque("net.CIDR"))});
  }
  return out;
}

Type DraDeviceType(const DraDeviceTypeOptions& options) {
  Type attribute = options.list_type_attributes ? Type::Dyn() : Type::Any();
  std::vector<std::pair<std::string, Type>> fields;
  if (options.consumable_capacity) {
    fields.push_back({"allowMultipleAllocations", Type::Bool()});
  }
  fields.push_back({"driver", Type::String()});
  fields.push_back(
      {"attributes",
       Type::Map(Type::String(), Type::Map(Type::String(), attribute))});
  fields.push_back(
      {"capacity", Type::Map(Type::String(),
                             Type::Map(Type::String(),
                                       Type::Struct("kubernetes.Quantity")))});
  return Type::Struct("kubernetes.DRADevice", std::move(fields));
}

}  // namespace draplane::cel::internal
