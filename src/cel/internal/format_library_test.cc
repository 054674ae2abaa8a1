#include "cel/internal/format_library.h"

#include <string>
#include <string_view>

#include "cel/cel.h"
#include "cel/internal/a100_test_device.h"
#include "cel/internal/environment.h"
#include "cel/internal/parser.h"
#include "common/name_validation.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace draplane::cel::internal {
namespace {

// An expression with the result the reference (cel-go in the Kubernetes
// 1.37 environment, `draref cel eval --plain --env k8s`) gives: a value in
// its JSON form with its type name, or an error message (a compile error
// or a runtime error).
struct OracleCase {
  const char* expr;
  const char* json;  // nullptr: an error is expected
  const char* type;
  const char* error;
};

// Generated with draref from the expressions; see OracleCase.
const OracleCase kOracleCases[] =
    {
        {R"x(type(format.dns1123Label()))x", R"x("kubernetes.NamedFormat")x",
         "type", nullptr},
        {R"x(format.named("dns1123Label").value() == format.dns1123Label())x",
         R"x(true)x", "bool", nullptr},
        {R"x(type(format.dns1123Subdomain()))x",
         R"x("kubernetes.NamedFormat")x", "type", nullptr},
        {R"x(format.named("dns1123Subdomain").value() == format.dns1123Subdomain())x",
         R"x(true)x", "bool", nullptr},
        {R"x(type(format.dns1035Label()))x", R"x("kubernetes.NamedFormat")x",
         "type", nullptr},
        {R"x(format.named("dns1035Label").value() == format.dns1035Label())x",
         R"x(true)x", "bool", nullptr},
        {R"x(type(format.qualifiedName()))x", R"x("kubernetes.NamedFormat")x",
         "type", nullptr},
        {R"x(format.named("qualifiedName").value() == format.qualifiedName())x",
         R"x(true)x", "bool", nullptr},
        {R"x(type(format.dns1123LabelPrefix()))x",
         R"x("kubernetes.NamedFormat")x", "type", nullptr},
        {R"x(format.named("dns1123LabelPrefix").value() == format.dns1123LabelPrefix())x",
         R"x(true)x", "bool", nullptr},
        {R"x(type(format.dns1123SubdomainPrefix()))x",
         R"x("kubernetes.NamedFormat")x", "type", nullptr},
        {R"x(format.named("dns1123SubdomainPrefix").value() == format.dns1123SubdomainPrefix())x",
         R"x(true)x", "bool", nullptr},
        {R"x(type(format.dns1035LabelPrefix()))x",
         R"x("kubernetes.NamedFormat")x", "type", nullptr},
        {R"x(format.named("dns1035LabelPrefix").value() == format.dns1035LabelPrefix())x",
         R"x(true)x", "bool", nullptr},
        {R"x(type(format.labelValue()))x", R"x("kubernetes.NamedFormat")x",
         "type", nullptr},
        {R"x(format.named("labelValue").value() == format.labelValue())x",
         R"x(true)x", "bool", nullptr},
        {R"x(type(format.uri()))x", R"x("kubernetes.NamedFormat")x", "type",
         nullptr},
        {R"x(format.named("uri").value() == format.uri())x", R"x(true)x",
         "bool", nullptr},
        {R"x(type(format.uuid()))x", R"x("kubernetes.NamedFormat")x", "type",
         nullptr},
        {R"x(format.named("uuid").value() == format.uuid())x", R"x(true)x",
         "bool", nullptr},
        {R"x(type(format.byte()))x", R"x("kubernetes.NamedFormat")x", "type",
         nullptr},
        {R"x(format.named("byte").value() == format.byte())x", R"x(true)x",
         "bool", nullptr},
        {R"x(type(format.date()))x", R"x("kubernetes.NamedFormat")x", "type",
         nullptr},
        {R"x(format.named("date").value() == format.date())x", R"x(true)x",
         "bool", nullptr},
        {R"x(type(format.datetime()))x", R"x("kubernetes.NamedFormat")x",
         "type", nullptr},
        {R"x(format.named("datetime").value() == format.datetime())x",
         R"x(true)x", "bool", nullptr},
        {R"x(format.named(""))x", R"x(null)x", "optional_type", nullptr},
        {R"x(format.named("URI"))x", R"x(null)x", "optional_type", nullptr},
        {R"x(format.named("Uri"))x", R"x(null)x", "optional_type", nullptr},
        {R"x(format.named("dns1123label"))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.named("DNS1123Label"))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.named("email"))x", R"x(null)x", "optional_type", nullptr},
        {R"x(format.named("ipv4"))x", R"x(null)x", "optional_type", nullptr},
        {R"x(format.named("format.uri"))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.named(" uri"))x", R"x(null)x", "optional_type", nullptr},
        {R"x(format.named("uri").hasValue())x", R"x(true)x", "bool", nullptr},
        {R"x(format.named("nope").hasValue())x", R"x(false)x", "bool", nullptr},
        {R"x(format.named("nope").value())x", nullptr, nullptr,
         R"x(optional.none() dereference)x"},
        {R"x(type(format.named("uri")))x", R"x("optional_type")x", "type",
         nullptr},
        {R"x(format.named("dns1035Label").value().validate("1a"))x",
         R"x(["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.named("x").orValue(format.uri()).validate("/p"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.uri() == format.uri())x", R"x(true)x", "bool", nullptr},
        {R"x(format.uri() == format.uuid())x", R"x(false)x", "bool", nullptr},
        {R"x(format.uri() != format.uuid())x", R"x(true)x", "bool", nullptr},
        {R"x(format.uri() != format.uri())x", R"x(false)x", "bool", nullptr},
        {R"x(format.dns1123Label() == format.dns1123LabelPrefix())x",
         R"x(false)x", "bool", nullptr},
        {R"x(format.date() == format.datetime())x", R"x(false)x", "bool",
         nullptr},
        {R"x(format.uri() == null)x", R"x(false)x", "bool", nullptr},
        {R"x(format.uri() != null)x", R"x(true)x", "bool", nullptr},
        {R"x(dyn(format.uri()) == 1)x", nullptr, nullptr,
         R"x(no such overload)x"},
        {R"x(dyn(format.uri()) == "uri")x", nullptr, nullptr,
         R"x(no such overload)x"},
        {R"x(dyn(format.uri()) != 1)x", R"x(true)x", "bool", nullptr},
        {R"x([format.uri(), format.byte()] == [format.uri(), format.byte()])x",
         R"x(true)x", "bool", nullptr},
        {R"x([format.uri()] == [format.byte()])x", R"x(false)x", "bool",
         nullptr},
        {R"x(format.byte() in [format.uri(), format.byte()])x", R"x(true)x",
         "bool", nullptr},
        {R"x(format.uuid() in [format.uri(), format.byte()])x", R"x(false)x",
         "bool", nullptr},
        {R"x(optional.of(format.uri()) == format.named("uri"))x", R"x(true)x",
         "bool", nullptr},
        {R"x(format.dns1123Label().validate("a.b").value()[0])x",
         R"x("must not contain dots")x", "string", nullptr},
        {R"x(format.dns1123Label().validate("a_b").orValue([]).size())x",
         R"x(1)x", "int", nullptr},
        {R"x(format.dns1123Label().validate("ok").orValue([]).size())x",
         R"x(0)x", "int", nullptr},
        {R"x(format.qualifiedName().validate("a/b/c").value().join("; "))x",
         R"x("a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")x",
         "string", nullptr},
        {R"x(format.dns1123Label().validate("ok").value())x", nullptr, nullptr,
         R"x(optional.none() dereference)x"},
        {R"x(format.dns1123Label().validate("a"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("my-name"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("123-abc"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123Label().validate(""))x",
         R"x(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("a_b"))x",
         R"x(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("a.b"))x",
         R"x(["must not contain dots"])x", "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("-a"))x",
         R"x(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("a-"))x",
         R"x(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("A"))x",
         R"x(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(["must be no more than 63 characters"])x", "optional_type",
         nullptr},
        {R"x(format.dns1123Label().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_"))x",
         R"x(["must be no more than 63 characters","a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(["must be no more than 63 characters","must not contain dots"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Label().validate("é"))x",
         R"x(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Subdomain().validate("example.com"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123Subdomain().validate("a"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123Subdomain().validate("a..b"))x",
         R"x(["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Subdomain().validate("a.-b"))x",
         R"x(["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Subdomain().validate(".a"))x",
         R"x(["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Subdomain().validate("a."))x",
         R"x(["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Subdomain().validate("A.com"))x",
         R"x(["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123Subdomain().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.dns1123Subdomain().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(["must be no more than 253 characters"])x", "optional_type",
         nullptr},
        {R"x(format.dns1123Subdomain().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."))x",
         R"x(["must be no more than 253 characters","a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1035Label().validate("my-name"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1035Label().validate("abc-123"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1035Label().validate("1a"))x",
         R"x(["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1035Label().validate("a.b"))x",
         R"x(["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1035Label().validate(""))x", R"x(["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1035Label().validate("a-"))x",
         R"x(["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1035Label().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.dns1035Label().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(["must be no more than 63 characters"])x", "optional_type",
         nullptr},
        {R"x(format.dns1035Label().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-"))x",
         R"x(["must be no more than 63 characters","a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("MyName"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("my.name"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("123-abc"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("example.com/MyName"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("a/b/c"))x",
         R"x(["a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"])x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("/a"))x",
         R"x(["prefix part must be non-empty"])x", "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("a/"))x",
         R"x(["name part must be non-empty","name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"])x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("Ex.com/a"))x",
         R"x(["prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"])x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("ex.com/My_Name"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate(""))x",
         R"x(["name part must be non-empty","name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"])x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("-a"))x",
         R"x(["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"])x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(["name part must be no more than 63 bytes"])x", "optional_type",
         nullptr},
        {R"x(format.qualifiedName().validate("x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(["name part must be no more than 63 bytes"])x", "optional_type",
         nullptr},
        {R"x(format.qualifiedName().validate("-x-/a_"))x",
         R"x(["prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')","name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"])x",
         "optional_type", nullptr},
        {R"x(format.qualifiedName().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/a"))x",
         R"x(["prefix part must be no more than 253 bytes"])x", "optional_type",
         nullptr},
        {R"x(format.qualifiedName().validate("a b"))x",
         R"x(["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123LabelPrefix().validate("a-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123LabelPrefix().validate("ab-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123LabelPrefix().validate("-"))x",
         R"x(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1123LabelPrefix().validate("a--"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123LabelPrefix().validate("a.-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123LabelPrefix().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.dns1123LabelPrefix().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-"))x",
         R"x(["must be no more than 63 characters"])x", "optional_type",
         nullptr},
        {R"x(format.dns1123LabelPrefix().validate("a_-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123LabelPrefix().validate("ex.com-"))x",
         R"x(["must not contain dots"])x", "optional_type", nullptr},
        {R"x(format.dns1123SubdomainPrefix().validate("a-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123SubdomainPrefix().validate("a.b-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123SubdomainPrefix().validate("a.-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1123SubdomainPrefix().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.dns1123SubdomainPrefix().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-"))x",
         R"x(["must be no more than 253 characters"])x", "optional_type",
         nullptr},
        {R"x(format.dns1123SubdomainPrefix().validate("A-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1035LabelPrefix().validate("a-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1035LabelPrefix().validate("1-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1035LabelPrefix().validate("ab-"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.dns1035LabelPrefix().validate("-"))x",
         R"x(["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.dns1035LabelPrefix().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.dns1035LabelPrefix().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-"))x",
         R"x(["must be no more than 63 characters"])x", "optional_type",
         nullptr},
        {R"x(format.labelValue().validate(""))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.labelValue().validate("MyValue"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.labelValue().validate("my_value"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.labelValue().validate("12345"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.labelValue().validate("a.b-c_d"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.labelValue().validate("-a"))x",
         R"x(["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.labelValue().validate("a-"))x",
         R"x(["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.labelValue().validate("a/b"))x",
         R"x(["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.labelValue().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.labelValue().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))x",
         R"x(["must be no more than 63 bytes"])x", "optional_type", nullptr},
        {R"x(format.labelValue().validate("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"))x",
         R"x(["must be no more than 63 bytes","a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.labelValue().validate("a b"))x",
         R"x(["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"])x",
         "optional_type", nullptr},
        {R"x(format.uri().validate(""))x", R"x(["parse \"\": empty url"])x",
         "optional_type", nullptr},
        {R"x(format.uri().validate("http://example.com"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.uri().validate("https://example.com:8080/p?q=1#f"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.uri().validate("/path"))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.uri().validate("path"))x",
         R"x(["parse \"path\": invalid URI for request"])x", "optional_type",
         nullptr},
        {R"x(format.uri().validate("http://[::1"))x",
         R"x(["parse \"http://[::1\": missing ']' in host"])x", "optional_type",
         nullptr},
        {R"x(format.uri().validate("http://a b"))x",
         R"x(["parse \"http://a b\": invalid character \" \" in host name"])x",
         "optional_type", nullptr},
        {R"x(format.uri().validate("mailto:x@y"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.uri().validate("http://x/%zz"))x",
         R"x(["parse \"http://x/%zz\": invalid URL escape \"%zz\""])x",
         "optional_type", nullptr},
        {R"x(format.uri().validate("#frag"))x",
         R"x(["parse \"#frag\": invalid URI for request"])x", "optional_type",
         nullptr},
        {R"x(format.uri().validate("http://é.com"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.uri().validate("*"))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.uri().validate("http://a:port/"))x",
         R"x(["parse \"http://a:port/\": invalid port \":port\" after host"])x",
         "optional_type", nullptr},
        {R"x(format.uri().validate("//host/p"))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.uri().validate("?q"))x",
         R"x(["parse \"?q\": invalid URI for request"])x", "optional_type",
         nullptr},
        {R"x(format.uri().validate("a:b"))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.uri().validate("http://[fe80::1%en0]/"))x",
         R"x(["parse \"http://[fe80::1%en0]/\": invalid URL escape \"%en\""])x",
         "optional_type", nullptr},
        {R"x(format.uri().validate("http://a\tb"))x",
         R"x(["parse \"http://a\\tb\": net/url: invalid control character in URL"])x",
         "optional_type", nullptr},
        {R"x(format.uuid().validate(""))x",
         R"x(["does not match the UUID format"])x", "optional_type", nullptr},
        {R"x(format.uuid().validate("123e4567-e89b-12d3-a456-426614174000"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.uuid().validate("123E4567-E89B-12D3-A456-426614174000"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.uuid().validate("123e4567e89b12d3a456426614174000"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.uuid().validate("123e4567-e89b12d3-a456-426614174000"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.uuid().validate("{123e4567-e89b-12d3-a456-426614174000}"))x",
         R"x(["does not match the UUID format"])x", "optional_type", nullptr},
        {R"x(format.uuid().validate("urn:uuid:123e4567-e89b-12d3-a456-426614174000"))x",
         R"x(["does not match the UUID format"])x", "optional_type", nullptr},
        {R"x(format.uuid().validate("123e4567-e89b-12d3-a456-42661417400g"))x",
         R"x(["does not match the UUID format"])x", "optional_type", nullptr},
        {R"x(format.uuid().validate("123e4567-e89b-12d3-a456-4266141740001"))x",
         R"x(["does not match the UUID format"])x", "optional_type", nullptr},
        {R"x(format.uuid().validate("123e4567--e89b-12d3-a456-426614174000"))x",
         R"x(["does not match the UUID format"])x", "optional_type", nullptr},
        {R"x(format.byte().validate(""))x", R"x(["invalid base64"])x",
         "optional_type", nullptr},
        {R"x(format.byte().validate("aGVsbG8="))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.byte().validate("aGVsbG8"))x", R"x(["invalid base64"])x",
         "optional_type", nullptr},
        {R"x(format.byte().validate("aGVsbA=="))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.byte().validate("aGVs"))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.byte().validate("aGV="))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.byte().validate("a==="))x", R"x(["invalid base64"])x",
         "optional_type", nullptr},
        {R"x(format.byte().validate("ab-_"))x", R"x(["invalid base64"])x",
         "optional_type", nullptr},
        {R"x(format.byte().validate("ab+/"))x", R"x(null)x", "optional_type",
         nullptr},
        {R"x(format.byte().validate("aGVsbG8=\n"))x", R"x(["invalid base64"])x",
         "optional_type", nullptr},
        {R"x(format.byte().validate("YQ==YQ=="))x", R"x(["invalid base64"])x",
         "optional_type", nullptr},
        {R"x(format.byte().validate("===="))x", R"x(["invalid base64"])x",
         "optional_type", nullptr},
        {R"x(format.byte().validate("YWJj ZA=="))x", R"x(["invalid base64"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate(""))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021-01-01"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021-1-01"))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021-02-29"))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2020-02-29"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.date().validate("1900-02-29"))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2000-02-29"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.date().validate("0000-02-29"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021-13-01"))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021-00-10"))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021-04-31"))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021-04-00"))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021-01-01x"))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("+021-01-01"))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021/01/01"))x", R"x(["invalid date"])x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021-12-31"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.date().validate("9999-12-31"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.date().validate("2021-01-01T00:00:00Z"))x",
         R"x(["invalid date"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate(""))x", R"x(["invalid datetime"])x",
         "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00Z"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01t00:00:00z"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T24:00:00Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T23:59:59Z"))x", R"x(null)x",
         "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T23:60:00Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T23:59:60Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00.123Z"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00,123Z"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00x1Z"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00+01:00"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00-0100"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01 00:00:00Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00ZT"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00ZTgarbage"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-02-30T00:00:00Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01TT00:00:00Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00Zx"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T99:00:00Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T0:00:00Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00.Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00éZ"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("T00:00:00Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00.5+05:30"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00K5Z"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2021-01-01T00:00:00\n5Z"))x",
         R"x(["invalid datetime"])x", "optional_type", nullptr},
        {R"x(format.datetime().validate("2020-02-29T12:30:45.999999999-23:59"))x",
         R"x(null)x", "optional_type", nullptr},
        {R"x(format.dns1123Label().validate(1))x", nullptr, nullptr,
         R"x(ERROR: <input>:1:31: found no matching overload for 'validate' applied to 'kubernetes.NamedFormat.(int)'
 | format.dns1123Label().validate(1)
 | ..............................^)x"},
        {R"x(format.dns1123Label(1))x", nullptr, nullptr,
         R"x(ERROR: <input>:1:20: found no matching overload for 'format.dns1123Label' applied to '(int)'
 | format.dns1123Label(1)
 | ...................^)x"},
        {R"x(format.validate("a"))x", nullptr, nullptr,
         R"x(ERROR: <input>:1:1: undeclared reference to 'format' (in container '')
 | format.validate("a")
 | ^)x"},
        {R"x(format.named(1))x", nullptr, nullptr,
         R"x(ERROR: <input>:1:13: found no matching overload for 'format.named' applied to '(int)'
 | format.named(1)
 | ............^)x"},
        {R"x(format.nope())x", nullptr, nullptr,
         R"x(ERROR: <input>:1:1: undeclared reference to 'format' (in container '')
 | format.nope()
 | ^
ERROR: <input>:1:12: undeclared reference to 'nope' (in container '')
 | format.nope()
 | ...........^)x"},
        {R"x(format)x", nullptr, nullptr,
         R"x(ERROR: <input>:1:1: undeclared reference to 'format' (in container '')
 | format
 | ^)x"},
        {R"x(format.uri)x", nullptr, nullptr,
         R"x(ERROR: <input>:1:1: undeclared reference to 'format' (in container '')
 | format.uri
 | ^)x"},
        {R"x(format.uri().validate())x", nullptr, nullptr,
         R"x(ERROR: <input>:1:22: found no matching overload for 'validate' applied to 'kubernetes.NamedFormat.()'
 | format.uri().validate()
 | .....................^)x"},
        {R"x(format.uri().validate("a", "b"))x", nullptr, nullptr,
         R"x(ERROR: <input>:1:22: found no matching overload for 'validate' applied to 'kubernetes.NamedFormat.(string, string)'
 | format.uri().validate("a", "b")
 | .....................^)x"},
        {R"x(string(format.uri()))x", nullptr, nullptr,
         R"x(ERROR: <input>:1:7: found no matching overload for 'string' applied to '(kubernetes.NamedFormat)'
 | string(format.uri())
 | ......^)x"},
        {R"x(format.uri() < format.uri())x", nullptr, nullptr,
         R"x(ERROR: <input>:1:14: found no matching overload for '_<_' applied to '(kubernetes.NamedFormat, kubernetes.NamedFormat)'
 | format.uri() < format.uri()
 | .............^)x"},
        {R"x(format.uri() + format.uri())x", nullptr, nullptr,
         R"x(ERROR: <input>:1:14: found no matching overload for '_+_' applied to '(kubernetes.NamedFormat, kubernetes.NamedFormat)'
 | format.uri() + format.uri()
 | .............^)x"},
        {R"x(format.uri().validate(dyn(1)))x", nullptr, nullptr,
         R"x(no such overload: validate(kubernetes.NamedFormat, int))x"},
        {R"x(type(format.uri()) == type(format.uuid()))x", R"x(true)x", "bool",
         nullptr},
        {R"x([format.uri()].map(f, f.validate("x")))x",
         R"x([["parse \"x\": invalid URI for request"]])x", "list", nullptr},
        {R"x(format.uri() == dyn(format.uri()))x", R"x(true)x", "bool",
         nullptr},
        {R"x(dyn(format.uri()) == format.named("uri"))x", nullptr, nullptr,
         R"x(no such overload)x"},
        {R"x([format.date(), format.datetime()].all(f, f.validate("2021-01-01").hasValue()))x",
         R"x(false)x", "bool", nullptr},
        {R"x([format.date(), format.datetime()].exists(f, f.validate("2021-01-01").hasValue()))x",
         R"x(true)x", "bool", nullptr},
        {R"x(format.named("dns1123Label").value().validate("a.b").value().join("\n"))x",
         R"x("must not contain dots")x", "string", nullptr},
};

// Compiles `expr` as `cel eval` does in the Kubernetes base environment
// (type-checked, Kubernetes' planner options, no variables) and evaluates
// it with the selector cost limit.
TEST(FormatLibraryTest, MatchesTheReference) {
  for (const OracleCase& c : kOracleCases) {
    SCOPED_TRACE(c.expr);
    auto program = Compiler::Default().CompileExpression(c.expr, {});
    if (!program.ok()) {
      // Compile errors carry the prefix Kubernetes' DRA compiler adds.
      ASSERT_EQ(c.json, nullptr) << program.status();
      EXPECT_EQ(std::string(program.status().message()),
                StrCat("compilation failed: ", c.error));
      continue;
    }
    Evaluation e = (*program)->Evaluate(std::map<std::string, api::Json>{});
    if (c.json == nullptr) {
      ASSERT_TRUE(e.error.has_value()) << e.value.dump();
      EXPECT_EQ(*e.error, c.error);
      continue;
    }
    ASSERT_FALSE(e.error.has_value()) << *e.error;
    EXPECT_EQ(e.value, nlohmann::json::parse(c.json));
    EXPECT_EQ(e.type, c.type);
  }
}

// DRA selectors (the scheduler's compiler) against the A100 fixture.

struct SelectorCase {
  const char* expr;
  bool matches;
  const char* error;  // nullptr: no error
};
const SelectorCase kSelectorCases[] = {
    {R"x(format.dns1123Subdomain().validate(device.driver) == optional.none())x",
     true, nullptr},
    {R"x(format.dns1123Label().validate(device.driver).value()[0] == "must not contain dots")x",
     true, nullptr},
    {R"x(format.labelValue().validate(device.attributes["gpu.nvidia.com"].productName).hasValue())x",
     true, nullptr},
    {R"x(format.named("qualifiedName").value().validate("gpu.nvidia.com/" + device.attributes["gpu.nvidia.com"].type).hasValue())x",
     false, nullptr},
    {R"x(format.named(device.driver).hasValue())x", false, nullptr},
    {R"x(format.uri().validate(device.attributes["gpu.nvidia.com"].productName).hasValue())x",
     true, nullptr},
    {R"x(cel.bind(f, format.dns1035Label(), f.validate("gpu").hasValue() || f.validate("1gpu").hasValue()))x",
     true, nullptr},
    {R"x(format.uri() == format.uri())x", true, nullptr},
    {R"x(format.uri())x", false,
     R"x(must evaluate to bool or the unknown type, not kubernetes.NamedFormat)x"},
    {R"x(format.dns1123Label().validate(1))x", false,
     "compilation failed: ERROR: <input>:1:31: found no matching overload for "
     "'validate' applied to 'kubernetes.NamedFormat.(int)'\n"
     " | format.dns1123Label().validate(1)\n"
     " | ..............................^"},
    {R"x(dyn(format.uri()))x", false,
     R"x(CEL result of type kubernetes.NamedFormat could not be converted to bool: type conversion error from 'Format' to 'bool')x"},
    {R"x(dyn(format.named("uri")))x", false,
     R"x(CEL result of type optional_type could not be converted to bool: type conversion error from 'Format' to 'bool')x"},
};

TEST(FormatLibraryTest, SelectorsMatchTheReference) {
  auto device = Device::Create("gpu.nvidia.com", A100TestDevice());
  ASSERT_TRUE(device.ok()) << device.status();
  for (const SelectorCase& c : kSelectorCases) {
    SCOPED_TRACE(c.expr);
    absl::StatusOr<bool> result = false;
    auto program = Compiler::Default().CompileSelector(c.expr);
    if (!program.ok()) {
      result = program.status();
    } else {
      result = (*program)->Matches(*device);
    }
    if (c.error != nullptr) {
      ASSERT_FALSE(result.ok()) << *result;
      EXPECT_EQ(std::string(result.status().message()), c.error);
      continue;
    }
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(*result, c.matches);
  }
}

// Runtime costs by Kubernetes' formula: validate costs
// ceil(0.1 x (1 + size)) x ceil(0.25 x MaxRegexSize); the constructors,
// format.named, hasValue and `==` on formats 1.
struct CostCase {
  const char* expr;
  uint64_t cost;
};
const CostCase kCostCases[] = {
    {R"(format.uri())", 1},
    {R"(format.named("uri"))", 1},
    {R"(format.named("uri").hasValue())", 2},
    {R"(format.uri() == format.uri())", 3},
    {R"(format.uri() != format.uuid())", 3},
    // 1 + ceil(0.1 x 1) x ceil(0.25 x 30).
    {R"(format.dns1123Label().validate(""))", 1 + 1 * 8},
    // 1 + ceil(0.1 x 10) x 8 (nine characters, plus one).
    {R"(format.dns1035Label().validate("123456789"))", 1 + 1 * 8},
    {R"(format.dns1035Label().validate("1234567890"))", 1 + 2 * 8},
    // Sizes count code points: "éé" is 2.
    {R"(format.dns1123Label().validate("éé"))", 1 + 1 * 8},
    {R"(format.dns1123Subdomain().validate("a.b"))", 1 + 1 * 15},
    {R"(format.qualifiedName().validate("example.com/a"))", 1 + 2 * 15},
    {R"(format.dns1123LabelPrefix().validate("a-"))", 1 + 1 * 8},
    {R"(format.dns1123SubdomainPrefix().validate("a-"))", 1 + 1 * 15},
    {R"(format.dns1035LabelPrefix().validate("a-"))", 1 + 1 * 8},
    {R"(format.labelValue().validate("x"))", 1 + 1 * 10},
    {R"(format.uri().validate("http://example.com/abc"))", 1 + 3 * 276},
    {R"(format.uuid().validate("123e4567-e89b-12d3-a456-426614174000"))",
     1 + 4 * 18},
    {R"(format.byte().validate("aGVsbG8="))", 1 + 1 * 21},
    {R"(format.date().validate("2021-01-01"))", 1 + 2 * 18},
    {R"(format.datetime().validate("2021-01-01T00:00:00Z"))", 1 + 3 * 18},
    {R"(format.named("uri").value().validate("/"))", 2 + 1 * 276},
};

TEST(FormatLibraryTest, RuntimeCosts) {
  for (const CostCase& c : kCostCases) {
    SCOPED_TRACE(c.expr);
    auto program = Compiler::Default().CompileExpression(c.expr, {});
    ASSERT_TRUE(program.ok()) << program.status();
    Evaluation e = (*program)->Evaluate(std::map<std::string, api::Json>{});
    ASSERT_FALSE(e.error.has_value()) << *e.error;
    EXPECT_EQ(e.cost, c.cost);
  }
}

// The smallest n for which `lists.range(n).all(...)` exceeds the cost
// limit of 1,000,000 in the reference (found by bisection with draref):
// the per-iteration costs, validate's included, agree.
struct ThresholdCase {
  const char* expr;  // with %d for n
  int n;
};
const ThresholdCase kThresholdCases[] = {
    {R"x(lists.range(%d).all(i, !format.uri().validate("http://example.com/abc").hasValue()))x",
     1198},
    {R"x(lists.range(%d).all(i, format.dns1123Label().validate("a_b").hasValue()))x",
     71428},
    {R"x(lists.range(%d).all(i, format.named("datetime").value().validate("2021-01-01T00:00:00Z") == optional.none()))x",
     16129},
    {R"x(lists.range(%d).all(i, format.uuid().validate("123e4567-e89b-12d3-a456-426614174000 ").hasValue()))x",
     12821},
    {R"x(lists.range(%d).all(i, format.byte().validate("").hasValue() && format.labelValue().validate("éééééééééé").orValue([]).size() == 1))x",
     20000},
    {R"x(lists.range(%d).all(i, format.qualifiedName().validate("example.com/" + string(i)) == optional.none()))x",
     24390},
};

TEST(FormatLibraryTest, CostLimitThresholdsMatchTheReference) {
  for (const ThresholdCase& c : kThresholdCases) {
    SCOPED_TRACE(c.expr);
    for (int n : {c.n - 1, c.n}) {
      std::string expr(c.expr);
      expr.replace(expr.find("%d"), 2, std::to_string(n));
      auto program = Compiler::Default().CompileExpression(expr, {});
      ASSERT_TRUE(program.ok()) << program.status();
      Evaluation e = (*program)->Evaluate(std::map<std::string, api::Json>{});
      if (n < c.n) {
        EXPECT_FALSE(e.error.has_value()) << n << ": " << *e.error;
      } else {
        ASSERT_TRUE(e.error.has_value()) << n;
        EXPECT_EQ(*e.error, kCostLimitExceededMessage) << n;
      }
    }
  }
}

// The worst-case estimate Kubernetes computes when validating a selector
// (library.CostEstimator: validate assumes a pattern of 128 characters,
// whatever the format; `==` on formats ceil(0.1 x 64)).
TEST(FormatLibraryTest, EstimatedCosts) {
  auto estimate = [](std::string_view expr) -> uint64_t {
    auto program = Compiler::Default().CompileSelector(expr, true);
    EXPECT_TRUE(program.ok()) << expr << ": " << program.status();
    return program.ok() ? (*program)->estimated_max_cost() : 0;
  };
  EXPECT_EQ(estimate(R"(format.named("dns1123Label").hasValue())"), 2u);
  EXPECT_EQ(
      estimate(R"(format.dns1123Label().validate(device.driver).hasValue())"),
      228u);
  EXPECT_EQ(estimate(R"(format.dns1123Label() == format.dns1123Label())"), 9u);
}

TEST(FormatLibraryTest, NamedFormats) {
  for (const char* name :
       {"dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName",
        "dns1123LabelPrefix", "dns1123SubdomainPrefix", "dns1035LabelPrefix",
        "labelValue", "uri", "uuid", "byte", "date", "datetime"}) {
    std::optional<Value> f = NamedFormatValue(name);
    ASSERT_TRUE(f.has_value()) << name;
    EXPECT_EQ(f->TypeName(), kNamedFormatTypeName);
    EXPECT_EQ(f->DebugString(), StrCat("format.", name, "()"));
    EXPECT_TRUE(ValuesEqual(*f, *NamedFormatValue(name)));
  }
  EXPECT_FALSE(NamedFormatValue("URI").has_value());
  EXPECT_FALSE(
      ValuesEqual(*NamedFormatValue("uri"), *NamedFormatValue("uuid")));
  EXPECT_EQ(FormatMaxRegexSize(*NamedFormatValue("uri")), 1103u);
  EXPECT_EQ(FormatMaxRegexSize(*NamedFormatValue("uuid")), 70u);
  EXPECT_EQ(FormatMaxRegexSize(*NamedFormatValue("datetime")), 71u);
}

// The DNS label checks are those of API validation except for the length
// message (pkg/util/validation says "characters", content says "bytes").
TEST(FormatLibraryTest, LengthMessagesFollowPkgUtilValidation) {
  std::string long_label(64, 'a');
  EXPECT_EQ(name_validation::IsDNS1123Label(long_label),
            std::vector<std::string>{"must be no more than 63 bytes"});
  EXPECT_EQ(ValidateWithFormat(*NamedFormatValue("dns1123Label"), long_label),
            std::vector<std::string>{"must be no more than 63 characters"});
  EXPECT_EQ(ValidateWithFormat(*NamedFormatValue("labelValue"), long_label),
            std::vector<std::string>{"must be no more than 63 bytes"});
}

}  // namespace
}  // namespace draplane::cel::internal
