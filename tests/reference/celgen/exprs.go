package celgen

import (
	"fmt"
	"strconv"
	"strings"
)

// typ is the static type an expression generator aims for. Attribute
// references are dyn in the DRA environment, so many generated
// expressions compile and then fail at runtime with a type error: that is
// intended.
type typ int

const (
	tBool typ = iota
	tInt
	tDouble
	tString
	tQuantity
	tSemver
	tStringList
	tIntList
	tDyn
)

// exprGen generates one expression; vars are the names bound by cel.bind
// and comprehensions in scope, with their types.
type exprGen struct {
	r    *rng
	vars []boundVar
	next int
}

type boundVar struct {
	name string
	t    typ
}

func (g *exprGen) fresh() string {
	g.next++
	return fmt.Sprintf("%s%d", pick(g.r, "x", "v", "a", "gpu", "dev"), g.next)
}

func (g *exprGen) withVar(name string, t typ, f func() string) string {
	g.vars = append(g.vars, boundVar{name, t})
	defer func() { g.vars = g.vars[:len(g.vars)-1] }()
	return f()
}

func (g *exprGen) varOf(t typ) (string, bool) {
	var names []string
	for _, v := range g.vars {
		if v.t == t || (t == tDyn && v.t != tBool) {
			names = append(names, v.name)
		}
	}
	if len(names) == 0 {
		return "", false
	}
	return pick(g.r, names...), true
}

func quote(s string) string {
	if len(s) > 0 && s[0] != '\'' && !strings.ContainsAny(s, `'\`) && len(s)%3 == 0 {
		return "'" + s + "'"
	}
	return strconv.Quote(s)
}

// domain picks the domain of an attribute or capacity lookup.
func (g *exprGen) domain() string {
	switch g.r.intn(20) {
	case 0, 1:
		return "device.driver"
	case 2:
		return quote(k8sDomain)
	case 3:
		return quote(otherDomain)
	case 4:
		return quote(pick(g.r, "missing.example.com", "nic.example.com", "gpu.example.com", "GPU.NVIDIA.COM", ""))
	}
	return quote(nvidiaDomain)
}

// selectName writes `base.name` or `base["name"]` (or base[?"name"] /
// base.?name for optional chains when opt is set).
func (g *exprGen) selectName(base, name string) string {
	ident := name != "" && isIdent(name)
	if ident && g.r.chance(70) {
		return base + "." + name
	}
	return base + "[" + quote(name) + "]"
}

func isIdent(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	switch s {
	case "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while", "true", "false", "null":
		return false
	}
	return true
}

// attrName picks an attribute name: mostly one of the wanted kind, else
// another kind or a name no device publishes.
func (g *exprGen) attrName(t typ) string {
	if g.r.chance(8) {
		return pick(g.r, missingNames...)
	}
	if g.r.chance(8) {
		t = pick(g.r, tString, tInt, tBool, tSemver, tStringList)
	}
	switch t {
	case tString:
		if g.r.chance(15) {
			return pick(g.r, foreignStringAttrs...)
		}
		return pick(g.r, stringAttrs...)
	case tInt:
		if g.r.chance(10) {
			return pick(g.r, foreignIntAttrs...)
		}
		return pick(g.r, intAttrs...)
	case tBool:
		return pick(g.r, boolAttrs...)
	case tSemver:
		return pick(g.r, versionAttrs...)
	case tStringList:
		return "supportedProfiles"
	case tIntList:
		return pick(g.r, "nvlinkPeers", "nvlinkPeers", "laneStatus", "compatibleDrivers")
	}
	return pick(g.r, append(append(stringAttrs[:len(stringAttrs):len(stringAttrs)], intAttrs...), listAttrs...)...)
}

// attrMap is an expression for one domain's attribute map.
func (g *exprGen) attrMap() string {
	if v, ok := g.varOf(typ(100)); ok {
		return v
	}
	return "device.attributes[" + g.domain() + "]"
}

func (g *exprGen) capMap() string {
	return "device.capacity[" + g.domain() + "]"
}

// attr is an attribute reference of (nominally) type t.
func (g *exprGen) attr(t typ) string {
	name := g.attrName(t)
	if g.r.chance(10) {
		// Bound domain map.
		m := g.fresh()
		return "cel.bind(" + m + ", device.attributes[" + g.domain() + "], " + g.selectName(m, name) + ")"
	}
	if g.r.chance(12) {
		return g.optionalAttr(t, name)
	}
	return g.selectName(g.attrMap(), name)
}

// optionalAttr is `map.?name.orValue(default)` and variants.
func (g *exprGen) optionalAttr(t typ, name string) string {
	base := "device.attributes[" + g.domain() + "]"
	var sel string
	if isIdent(name) && g.r.chance(70) {
		sel = base + ".?" + name
	} else {
		sel = base + "[?" + quote(name) + "]"
	}
	if g.r.chance(15) {
		sel = "device.attributes[?" + g.domain() + "].?" + pick(g.r, "productName", "index", "missing")
	}
	def := g.lit(t)
	if t == tDyn || t == tStringList || t == tIntList {
		def = g.lit(pick(g.r, tString, tInt, tBool))
	}
	switch g.r.intn(6) {
	case 0:
		return sel + ".orValue(" + def + ")"
	case 1:
		return sel + ".or(optional.of(" + def + ")).value()"
	case 2:
		return sel + ".value()"
	}
	return sel + ".orValue(" + def + ")"
}

func (g *exprGen) capacity() string {
	var name string
	switch {
	case g.r.chance(10):
		name = pick(g.r, foreignCapacities...)
	case g.r.chance(8):
		name = pick(g.r, missingNames...)
	default:
		name = pick(g.r, capacities...)
	}
	if g.r.chance(8) {
		return "device.capacity[" + g.domain() + "].?" + pick(g.r, "memory", "decoders", "missing") + ".orValue(quantity(" + quote(pick(g.r, "0", "1Gi")) + "))"
	}
	return g.selectName(g.capMap(), name)
}

var (
	stringLits = []string{"", "gpu", "mig", "NVIDIA", "Nvidia", "nvidia", "A100", "H100", "1g", "+me", "gb", "GPU-", "-", ".", "pci0000:0",
		"Ampere", "Hopper", "ÄÖ", "80GB", "a,b,c"}
	regexes    = []string{"^NVIDIA", "A100|H100", "^[0-9]g\\\\.[0-9]+gb$", "(?i)nvidia", "^pci0000:0[0-1]$", ".*", "^$", "[a-z]+\\\\+me", "GPU-[0-9a-f]{8}", "\\\\d+"}
	quantities = []string{"40Gi", "80Gi", "10Gi", "1", "0", "100m", "1.5", "1e3", "2k", "64Gi", "81920Mi", "20096Mi", "-1", "1Ei", "0.5Gi"}
	semvers    = []string{"8.0.0", "9.0.0", "8.5.0", "550.54.15", "535.0.0", "12.4.0", "1.2.3", "0.0.1", "10.0.0-alpha", "550.54.15-rc.1"}
)

func (g *exprGen) lit(t typ) string {
	switch t {
	case tBool:
		return pick(g.r, "true", "false")
	case tInt:
		switch g.r.intn(12) {
		case 0:
			return pick(g.r, "9223372036854775807", "-9223372036854775808", "-1")
		case 1:
			return "0"
		}
		return strconv.Itoa(g.r.intn(12))
	case tDouble:
		return pick(g.r, "0.0", "1.5", "5e10", "-2.25", "85899345920.0", "1e300")
	case tString:
		if g.r.chance(30) {
			return quote(pick(g.r, products...))
		}
		if g.r.chance(20) {
			return quote(pick(g.r, migProfiles...))
		}
		return quote(pick(g.r, stringLits...))
	case tQuantity:
		return "quantity(" + quote(pick(g.r, quantities...)) + ")"
	case tSemver:
		if g.r.chance(10) {
			return "semver(" + quote(pick(g.r, "v1.2", "8.0", "550.54.15")) + ", true)"
		}
		return "semver(" + quote(pick(g.r, semvers...)) + ")"
	case tStringList:
		n := 1 + g.r.intn(3)
		var parts []string
		for i := 0; i < n; i++ {
			parts = append(parts, g.lit(tString))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case tIntList:
		n := g.r.intn(4)
		var parts []string
		for i := 0; i < n; i++ {
			parts = append(parts, g.lit(tInt))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return g.lit(pick(g.r, tString, tInt, tBool))
}

var (
	cmpOps = []string{"==", "!=", "<", "<=", ">", ">="}
	eqOps  = []string{"==", "!="}
)

// gen returns an expression aiming for type t within depth d.
func (g *exprGen) gen(t typ, d int) string {
	if d <= 0 || g.r.chance(15) {
		return g.leaf(t)
	}
	switch t {
	case tBool:
		return g.genBool(d - 1)
	case tInt:
		return g.genInt(d - 1)
	case tDouble:
		return g.genDouble(d - 1)
	case tString:
		return g.genString(d - 1)
	case tQuantity:
		return g.genQuantity(d - 1)
	case tSemver:
		return g.genSemver(d - 1)
	case tStringList:
		return g.genStringList(d - 1)
	case tIntList:
		return g.genIntList(d - 1)
	}
	return g.genDyn(d - 1)
}

// leaf is a literal, a bound variable or a device reference.
func (g *exprGen) leaf(t typ) string {
	if v, ok := g.varOf(t); ok && g.r.chance(50) {
		return v
	}
	switch t {
	case tBool:
		switch g.r.intn(6) {
		case 0:
			return "device.allowMultipleAllocations"
		case 1:
			return g.lit(tBool)
		}
		return g.attr(tBool)
	case tQuantity:
		if g.r.chance(60) {
			return g.capacity()
		}
		return g.lit(tQuantity)
	case tDouble:
		return g.lit(tDouble)
	case tIntList:
		if g.r.chance(50) {
			return g.attr(tIntList)
		}
		return g.lit(tIntList)
	case tStringList:
		if g.r.chance(50) {
			return g.attr(tStringList)
		}
		return g.lit(tStringList)
	case tString:
		if g.r.chance(10) {
			return "device.driver"
		}
	}
	if g.r.chance(50) {
		return g.lit(t)
	}
	return g.attr(t)
}

func (g *exprGen) genBool(d int) string {
	switch g.r.intn(30) {
	case 0, 1:
		return g.gen(tInt, d) + " " + pick(g.r, cmpOps...) + " " + g.gen(tInt, d)
	case 2, 3:
		return g.gen(tString, d) + " " + pick(g.r, cmpOps...) + " " + g.gen(tString, d)
	case 4:
		// Mixed numeric comparisons.
		return g.gen(tInt, d) + " " + pick(g.r, cmpOps...) + " " + pick(g.r, g.gen(tDouble, d), strconv.Itoa(g.r.intn(5))+"u", "double("+g.gen(tInt, d)+")")
	case 5:
		return g.gen(tBool, d) + " " + pick(g.r, eqOps...) + " " + g.gen(tBool, d)
	case 6:
		return g.has()
	case 7:
		return g.in(d)
	case 8, 9:
		return g.gen(tBool, d) + " && " + g.gen(tBool, d)
	case 10, 11:
		return g.gen(tBool, d) + " || " + g.gen(tBool, d)
	case 12:
		return "!" + g.paren(g.gen(tBool, d))
	case 13:
		return g.gen(tBool, d) + " ? " + g.gen(tBool, d) + " : " + g.gen(tBool, d)
	case 14, 15:
		s := g.gen(tString, d)
		switch g.r.intn(4) {
		case 0:
			return s + ".startsWith(" + g.gen(tString, d) + ")"
		case 1:
			return s + ".endsWith(" + g.gen(tString, d) + ")"
		case 2:
			return s + ".contains(" + g.gen(tString, d) + ")"
		}
		return s + ".matches(" + quote(pick(g.r, regexes...)) + ")"
	case 16, 17:
		a, b := g.gen(tQuantity, d), g.gen(tQuantity, d)
		switch g.r.intn(7) {
		case 0:
			return a + ".isGreaterThan(" + b + ")"
		case 1:
			return a + ".isLessThan(" + b + ")"
		case 2:
			return a + ".compareTo(" + b + ") " + pick(g.r, cmpOps...) + " " + pick(g.r, "0", "1", "-1")
		case 3:
			return a + ".isInteger()"
		case 4:
			return a + ".sign() " + pick(g.r, cmpOps...) + " " + pick(g.r, "0", "1", "-1")
		case 5:
			return a + ".asApproximateFloat() " + pick(g.r, cmpOps...) + " " + g.gen(tDouble, d)
		}
		return a + " " + pick(g.r, eqOps...) + " " + b
	case 18, 19:
		a, b := g.gen(tSemver, d), g.gen(tSemver, d)
		switch g.r.intn(5) {
		case 0:
			return a + ".isGreaterThan(" + b + ")"
		case 1:
			return a + ".isLessThan(" + b + ")"
		case 2:
			return a + ".compareTo(" + b + ") " + pick(g.r, cmpOps...) + " 0"
		case 3:
			return a + "." + pick(g.r, "major", "minor", "patch") + "() " + pick(g.r, cmpOps...) + " " + g.gen(tInt, d)
		}
		return a + " " + pick(g.r, eqOps...) + " " + b
	case 20, 21:
		return g.macroBool(d)
	case 22:
		v := g.fresh()
		bt := pick(g.r, tString, tInt, tQuantity, tSemver, tStringList)
		init := g.gen(bt, d)
		if g.r.chance(30) {
			bt = typ(100) // a domain map
			init = "device.attributes[" + g.domain() + "]"
		}
		return "cel.bind(" + v + ", " + init + ", " + g.withVar(v, bt, func() string { return g.genBoolUsing(v, bt, d) }) + ")"
	case 23:
		return g.sizeOf(d) + " " + pick(g.r, cmpOps...) + " " + g.gen(tInt, d)
	case 24:
		return "device.driver " + pick(g.r, eqOps...) + " " + quote(pick(g.r, nvidiaDomain, "nic.example.com", "gpu.example.com"))
	case 25:
		return g.optionalBool()
	case 26:
		return g.gen(tDyn, d) + " " + pick(g.r, cmpOps...) + " " + g.gen(pick(g.r, tInt, tString, tDyn), d)
	case 27:
		return "type(" + g.gen(tDyn, d) + ") == " + pick(g.r, "int", "string", "bool", "list", "map")
	case 28:
		return g.gen(tDyn, d) + " " + pick(g.r, eqOps...) + " " + g.lit(pick(g.r, tInt, tString, tBool, tDouble))
	}
	return g.leaf(tBool)
}

// genBoolUsing is a bool expression over the bound variable v of type t.
func (g *exprGen) genBoolUsing(v string, t typ, d int) string {
	switch t {
	case tString:
		return pick(g.r, v+".startsWith("+g.lit(tString)+")", v+" == "+g.lit(tString), v+".size() > "+g.lit(tInt), g.gen(tBool, d))
	case tInt:
		return v + " " + pick(g.r, cmpOps...) + " " + g.gen(tInt, d)
	case tQuantity:
		return pick(g.r, v+".isGreaterThan("+g.lit(tQuantity)+")", v+".compareTo("+g.gen(tQuantity, d)+") >= 0", g.gen(tBool, d))
	case tSemver:
		return pick(g.r, v+".isLessThan("+g.lit(tSemver)+")", v+".major() >= "+g.lit(tInt))
	case tStringList:
		return pick(g.r, v+".exists(p, p.startsWith("+g.lit(tString)+"))", "size("+v+") > 1", g.lit(tString)+" in "+v)
	case typ(100):
		return pick(g.r,
			v+"."+g.attrName(tString)+" == "+g.lit(tString),
			"has("+v+"."+g.attrName(tDyn)+")",
			v+".?"+g.attrName(tInt)+".orValue(0) > "+g.lit(tInt),
			g.gen(tBool, d)+" && "+g.selectName(v, g.attrName(tBool)))
	}
	return g.gen(tBool, d)
}

func (g *exprGen) paren(s string) string { return "(" + s + ")" }

func (g *exprGen) has() string {
	switch g.r.intn(5) {
	case 0:
		return "has(" + g.capMap() + "." + pick(g.r, "memory", "decoders", "bandwidth", "missing") + ")"
	case 1:
		return "has(device.attributes[" + g.domain() + "]." + pick(g.r, "productName", "profile", "index", "missing") + ")"
	case 2:
		return "has(device." + pick(g.r, "attributes", "capacity", "driver", "allowMultipleAllocations") + ")"
	}
	name := g.attrName(tDyn)
	if !isIdent(name) {
		name = "missing"
	}
	return "has(" + g.attrMap() + "." + name + ")"
}

func (g *exprGen) in(d int) string {
	switch g.r.intn(7) {
	case 0:
		return quote(g.attrName(tDyn)) + " in " + g.attrMap()
	case 1:
		return g.domain() + " in device.attributes"
	case 2:
		return quote(pick(g.r, "memory", "bandwidth", "missing")) + " in " + g.capMap()
	case 3:
		return g.gen(tString, d) + " in " + g.gen(tStringList, d)
	case 4:
		return g.gen(tInt, d) + " in " + g.gen(tIntList, d)
	case 5:
		return g.gen(tDyn, d) + " in " + g.attr(pick(g.r, tStringList, tIntList))
	}
	return g.domain() + " in device.capacity"
}

func (g *exprGen) optionalBool() string {
	base := "device.attributes[" + g.domain() + "]"
	switch g.r.intn(4) {
	case 0:
		return base + ".?" + g.identName() + ".hasValue()"
	case 1:
		return "optional.of(" + g.lit(tInt) + ").hasValue()"
	case 2:
		return base + ".?" + pick(g.r, boolAttrs...) + ".orValue(" + g.lit(tBool) + ")"
	}
	return "optional.ofNonZeroValue(" + g.attr(tString) + ").hasValue()"
}

func (g *exprGen) identName() string {
	n := g.attrName(tDyn)
	if !isIdent(n) {
		return "missing"
	}
	return n
}

func (g *exprGen) sizeOf(d int) string {
	switch g.r.intn(6) {
	case 0:
		return "size(" + g.gen(tString, d) + ")"
	case 1:
		return g.gen(tString, d) + ".size()"
	case 2:
		return "size(" + g.gen(tStringList, d) + ")"
	case 3:
		return "size(" + g.attrMap() + ")"
	case 4:
		return "device.attributes.size()"
	}
	return "size(" + g.attr(tDyn) + ")"
}

// macroBool: all/exists/exists_one over lists and maps.
func (g *exprGen) macroBool(d int) string {
	m := pick(g.r, "all", "exists", "exists_one")
	v := g.fresh()
	switch g.r.intn(6) {
	case 0, 1:
		return g.gen(tStringList, d) + "." + m + "(" + v + ", " + g.withVar(v, tString, func() string { return g.genBoolUsing(v, tString, d) }) + ")"
	case 2:
		return g.gen(tIntList, d) + "." + m + "(" + v + ", " + g.withVar(v, tInt, func() string { return g.genBoolUsing(v, tInt, d) }) + ")"
	case 3:
		// Over an attribute map's keys.
		mp := "device.attributes[" + g.domain() + "]"
		return mp + "." + m + "(" + v + ", " + g.withVar(v, tString, func() string {
			return pick(g.r, v+".startsWith("+g.lit(tString)+")", v+" == "+quote(g.attrName(tDyn)), g.genBoolUsing(v, tString, d))
		}) + ")"
	case 4:
		// Over the domains, looking into each.
		outer := pick(g.r, "device.attributes", "device.capacity")
		inner := "device.attributes[" + v + "]"
		if outer == "device.capacity" {
			inner = "device.capacity[" + v + "]"
		}
		return outer + "." + m + "(" + v + ", " + pick(g.r, v+".endsWith(\".com\")", "size("+inner+") > "+g.lit(tInt), "has("+inner+".productName)", quote(g.attrName(tDyn))+" in "+inner) + ")"
	}
	// Two-variable form over a map or a list.
	k := g.fresh()
	if g.r.chance(50) {
		return "device.attributes[" + g.domain() + "]." + pick(g.r, "all", "exists") + "(" + k + ", " + v + ", " + k + ".startsWith(" + g.lit(tString) + ") || " + pick(g.r, "type("+v+") == string", v+" == "+g.lit(tString)) + ")"
	}
	return g.gen(tStringList, d) + "." + pick(g.r, "all", "exists") + "(" + k + ", " + v + ", " + k + " < " + g.lit(tInt) + " && " + v + " != " + g.lit(tString) + ")"
}

func (g *exprGen) genInt(d int) string {
	switch g.r.intn(16) {
	case 0:
		return g.gen(tInt, d) + " + " + g.gen(tInt, d)
	case 1:
		return g.gen(tInt, d) + " - " + g.gen(tInt, d)
	case 2:
		return g.gen(tInt, d) + " * " + g.gen(tInt, d)
	case 3:
		return g.paren(g.gen(tInt, d)) + " / " + pick(g.r, "0", g.gen(tInt, d))
	case 4:
		return g.paren(g.gen(tInt, d)) + " % " + pick(g.r, "0", g.gen(tInt, d), "-1")
	case 5:
		return "-" + g.paren(g.gen(tInt, d))
	case 6:
		return g.sizeOf(d)
	case 7:
		return g.gen(tString, d) + "." + pick(g.r, "indexOf", "lastIndexOf") + "(" + g.gen(tString, d) + ")"
	case 8:
		return g.gen(tQuantity, d) + "." + pick(g.r, "asInteger()", "sign()", "compareTo("+g.gen(tQuantity, d)+")")
	case 9:
		return g.gen(tSemver, d) + "." + pick(g.r, "major()", "minor()", "patch()", "compareTo("+g.gen(tSemver, d)+")")
	case 10:
		return "int(" + pick(g.r, g.gen(tDouble, d), quote(pick(g.r, "42", "-7", "x", "9223372036854775808")), g.gen(tDyn, d)) + ")"
	case 11:
		return g.gen(tBool, d) + " ? " + g.gen(tInt, d) + " : " + g.gen(tInt, d)
	case 12:
		v := g.fresh()
		return "cel.bind(" + v + ", " + g.gen(tInt, d) + ", " + v + " " + pick(g.r, "+", "*", "-") + " " + v + ")"
	case 13:
		return g.gen(tIntList, d) + "[" + pick(g.r, "0", "1", "5", "-1") + "]"
	}
	return g.leaf(tInt)
}

func (g *exprGen) genDouble(d int) string {
	switch g.r.intn(5) {
	case 0:
		return g.gen(tQuantity, d) + ".asApproximateFloat()"
	case 1:
		return "double(" + g.gen(tInt, d) + ")"
	case 2:
		return g.gen(tDouble, d) + " " + pick(g.r, "+", "-", "*", "/") + " " + g.gen(tDouble, d)
	}
	return g.lit(tDouble)
}

func (g *exprGen) genString(d int) string {
	s := g.gen(tString, d)
	switch g.r.intn(14) {
	case 0:
		return s + ".lowerAscii()"
	case 1:
		return s + ".upperAscii()"
	case 2:
		return s + ".trim()"
	case 3:
		return s + ".replace(" + g.gen(tString, d) + ", " + g.lit(tString) + ")"
	case 4:
		return s + ".substring(" + pick(g.r, "0", "1", "3", "-1", "100") + ")"
	case 5:
		return s + ".substring(" + pick(g.r, "0", "1", "2") + ", " + pick(g.r, "3", "4", "0", "50") + ")"
	case 6:
		return s + ".split(" + quote(pick(g.r, " ", "-", ".", "", "g")) + ")[" + pick(g.r, "0", "1", "2", "-1") + "]"
	case 7:
		return s + " + " + g.gen(tString, d)
	case 8:
		return s + ".charAt(" + pick(g.r, "0", "1", "5", "-1", "100") + ")"
	case 9:
		return "string(" + g.gen(pick(g.r, tInt, tDouble, tBool, tDyn), d) + ")"
	case 10:
		return g.gen(tStringList, d) + ".join(" + pick(g.r, "", quote("-"), quote(", ")) + ")"
	case 11:
		return g.gen(tBool, d) + " ? " + s + " : " + g.gen(tString, d)
	case 12:
		return "strings.quote(" + s + ")"
	}
	return g.leaf(tString)
}

func (g *exprGen) genQuantity(d int) string {
	switch g.r.intn(6) {
	case 0:
		return g.gen(tQuantity, d) + ".add(" + pick(g.r, g.gen(tQuantity, d), g.gen(tInt, d)) + ")"
	case 1:
		return g.gen(tQuantity, d) + ".sub(" + pick(g.r, g.gen(tQuantity, d), g.gen(tInt, d)) + ")"
	case 2:
		return "quantity(" + g.gen(tString, d) + ")"
	}
	return g.leaf(tQuantity)
}

func (g *exprGen) genSemver(d int) string {
	if g.r.chance(20) {
		return "semver(" + g.gen(tString, d) + ")"
	}
	return g.leaf(tSemver)
}

func (g *exprGen) genStringList(d int) string {
	switch g.r.intn(6) {
	case 0:
		return g.gen(tString, d) + ".split(" + quote(pick(g.r, " ", "-", ".", ",")) + ")"
	case 1:
		v := g.fresh()
		return g.gen(tStringList, d) + ".map(" + v + ", " + g.withVar(v, tString, func() string {
			return pick(g.r, v+".lowerAscii()", v+" + "+g.lit(tString), v)
		}) + ")"
	case 2:
		v := g.fresh()
		return g.gen(tStringList, d) + ".filter(" + v + ", " + g.withVar(v, tString, func() string { return g.genBoolUsing(v, tString, d) }) + ")"
	case 3:
		// Keys of a domain map.
		v := g.fresh()
		return "device.attributes[" + g.domain() + "]." + pick(g.r, "map", "filter") + "(" + v + ", " + g.withVar(v, tString, func() string {
			return pick(g.r, v+".startsWith("+g.lit(tString)+")", v+" != "+g.lit(tString))
		}) + ")"
	case 4:
		return g.gen(tStringList, d) + " + " + g.gen(tStringList, d)
	}
	return g.leaf(tStringList)
}

func (g *exprGen) genIntList(d int) string {
	switch g.r.intn(4) {
	case 0:
		v := g.fresh()
		return g.gen(tIntList, d) + ".map(" + v + ", " + g.withVar(v, tInt, func() string { return v + " " + pick(g.r, "*", "+", "/", "%") + " " + g.lit(tInt) }) + ")"
	case 1:
		v := g.fresh()
		return g.gen(tStringList, d) + ".map(" + v + ", " + g.withVar(v, tString, func() string { return "size(" + v + ")" }) + ")"
	case 2:
		v := g.fresh()
		return g.gen(tIntList, d) + ".map(" + v + ", " + v + " > " + g.lit(tInt) + ", " + v + " * 2)"
	}
	return g.leaf(tIntList)
}

// genDyn is an attribute value of unknown type, possibly through a
// comprehension or a conditional.
func (g *exprGen) genDyn(d int) string {
	switch g.r.intn(5) {
	case 0:
		return g.gen(tBool, d) + " ? " + g.attr(tDyn) + " : " + g.attr(tDyn)
	case 1:
		return g.attr(tDyn)
	}
	return g.attr(pick(g.r, tString, tInt, tBool, tSemver, tDyn))
}

// topLevel generates one selector. Most are bool; some are dyn so that
// results of other types meet DeviceMatches' conversion.
func (g *exprGen) topLevel() string {
	switch g.r.intn(40) {
	case 0:
		return g.attr(tDyn)
	case 1:
		return g.genDyn(2)
	case 2:
		return g.optionalAttr(tBool, pick(g.r, boolAttrs...))
	}
	return g.gen(tBool, 1+g.r.intn(4))
}
