// Package gen generates random, valid, small DRA allocation scenarios from a
// seed. The same seed always gives the same bytes (for a given Version), and
// the seed is part of the scenario name ("gen-<seed>-<family>"), so any
// scenario can be regenerated with `draref gen --seed N`.
package gen

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// Version changes whenever a seed starts producing a different scenario.
const Version = 1

// Annotations recorded on the Scenario header.
const (
	AnnotationGenerator = "draplane.dev/generator"
	AnnotationSeed      = "draplane.dev/seed"
	AnnotationFamily    = "draplane.dev/family"
)

// Scenario is one generated scenario file.
type Scenario struct {
	Seed   uint64
	Name   string
	Family string
	// Ext is "yaml" or "json" (a JSON stream).
	Ext  string
	Data []byte
}

// FileName is the suggested file name, e.g. "gen-42-mig.yaml".
func (s Scenario) FileName() string { return s.Name + "." + s.Ext }

// Families are the scenario shapes, chosen by the seed.
var Families = []string{"basic", "network", "mig", "shared", "pools", "taints"}

const (
	targetNode = "node-1"
	otherNode  = "node-2"
	adminNS    = "admin-ns"
	gpuDriver  = "gpu.example.com"
	nicDriver  = "nic.example.com"
	nvDriver   = "gpu.nvidia.com"
)

// Generate builds the scenario for one seed.
func Generate(seed uint64) Scenario {
	b := &builder{r: newRNG(seed), seed: seed}
	b.family = Families[b.r.intn(len(Families))]
	b.build()
	name := fmt.Sprintf("gen-%d-%s", seed, b.family)
	ext := "yaml"
	if b.r.chance(10) {
		ext = "json"
	}
	data := b.serialize(name, ext)
	return Scenario{Seed: seed, Name: name, Family: b.family, Ext: ext, Data: data}
}

type invDevice struct {
	slice *resourceapi.ResourceSlice
	index int
	// usable: the device's pool is complete, valid and relevant for the
	// target node (pre-allocations only use such devices).
	usable bool
	kind   string // gpu, nic, shared, mig, fullgpu
	gpu    int    // physical GPU index (mig, fullgpu)
}

func (d *invDevice) dev() *resourceapi.Device { return &d.slice.Spec.Devices[d.index] }
func (d *invDevice) driver() string           { return d.slice.Spec.Driver }
func (d *invDevice) pool() string             { return d.slice.Spec.Pool.Name }

type builder struct {
	r      *rng
	seed   uint64
	family string

	nodes      []*corev1.Node
	namespaces []*corev1.Namespace
	classes    []*resourceapi.DeviceClass
	slices     []*resourceapi.ResourceSlice
	rules      []*resourceapi.DeviceTaintRule
	allocated  []*resourceapi.ResourceClaim
	claims     []*resourceapi.ResourceClaim
	inv        []*invDevice
	features   *[]string

	// taints used on devices, for tolerations.
	taints []resourceapi.DeviceTaint
	// mig state: counters used per GPU by pre-allocations.
	mig *migState
	// errorSelectors enables selectors that can fail at runtime.
	errorSelectors bool
	uidCounter     int
	// plain: serialize in build order, all resource.k8s.io objects as v1.
	plain bool
	// headerNode overrides the header's spec.node (default targetNode).
	headerNode string
}

func (b *builder) build() {
	b.nodes = append(b.nodes, node(targetNode, "zone-a", "rack-1"))
	if b.r.chance(60) {
		b.nodes = append(b.nodes, node(otherNode, "zone-b", "rack-2"))
	}
	if b.r.chance(5) {
		// No Node object for the target: label selectors cannot match.
		b.nodes = b.nodes[1:]
	}
	b.errorSelectors = b.r.chance(8)
	switch b.family {
	case "basic":
		b.familyBasic()
	case "network":
		b.familyNetwork()
	case "mig":
		b.familyMIG()
	case "shared":
		b.familyShared()
	case "pools":
		b.familyPools()
	case "taints":
		b.familyTaints()
	}
	// Sprinkles that can appear in any family.
	if b.family != "pools" && b.r.chance(8) {
		b.invalidPool()
	}
	if b.family != "taints" && b.r.chance(8) {
		b.taintRandomDevices(1)
	}
	if b.r.chance(10) {
		b.otherNodePool()
	}
	b.chooseFeatures()
}

func (b *builder) chooseFeatures() {
	if !b.r.chance(12) {
		return // Kubernetes 1.37 defaults
	}
	all := []string{"AdminAccess", "ConsumableCapacity", "DeviceBindingAndStatus", "DeviceTaints", "FractionalCapacityRange", "PartitionableDevices", "PrioritizedList"}
	var list []string
	for _, f := range all {
		if b.r.chance(75) {
			list = append(list, f)
		}
	}
	if list == nil {
		list = []string{}
	}
	b.features = &list
}

func node(name, zone, rack string) *corev1.Node {
	n := &corev1.Node{}
	n.APIVersion, n.Kind = "v1", "Node"
	n.Name = name
	n.Labels = map[string]string{
		"kubernetes.io/hostname":      name,
		"topology.kubernetes.io/zone": zone,
		"example.com/rack":            rack,
	}
	return n
}

// --- object helpers -------------------------------------------------------

func sAttr(v string) resourceapi.DeviceAttribute { return resourceapi.DeviceAttribute{StringValue: &v} }
func iAttr(v int64) resourceapi.DeviceAttribute  { return resourceapi.DeviceAttribute{IntValue: &v} }
func bAttr(v bool) resourceapi.DeviceAttribute   { return resourceapi.DeviceAttribute{BoolValue: &v} }
func vAttr(v string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{VersionValue: &v}
}
func capOf(q string) resourceapi.DeviceCapacity {
	return resourceapi.DeviceCapacity{Value: resource.MustParse(q)}
}
func qty(q string) resource.Quantity   { return resource.MustParse(q) }
func qptr(q string) *resource.Quantity { v := resource.MustParse(q); return &v }

// placement says which nodes a slice serves.
type placement struct {
	nodeName  string
	selector  *corev1.NodeSelector
	allNodes  bool
	perDevice bool
	// relevant: whether the generator expects the target node to match.
	relevant bool
}

func onNode(name string) placement { return placement{nodeName: name, relevant: name == targetNode} }

func (b *builder) addSlice(name, driver, pool string, generation, count int64, where placement, devices []resourceapi.Device, usable bool, kind string) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{}
	s.APIVersion, s.Kind = "resource.k8s.io/v1", "ResourceSlice"
	s.Name = name
	s.Spec.Driver = driver
	s.Spec.Pool = resourceapi.ResourcePool{Name: pool, Generation: generation, ResourceSliceCount: count}
	switch {
	case where.nodeName != "":
		s.Spec.NodeName = ptr.To(where.nodeName)
	case where.selector != nil:
		s.Spec.NodeSelector = where.selector
	case where.allNodes:
		s.Spec.AllNodes = ptr.To(true)
	case where.perDevice:
		s.Spec.PerDeviceNodeSelection = ptr.To(true)
	}
	s.Spec.Devices = devices
	b.slices = append(b.slices, s)
	for i := range devices {
		b.inv = append(b.inv, &invDevice{slice: s, index: i, usable: usable && where.relevant, kind: kind})
	}
	return s
}

func (b *builder) addClass(name string, config bool, selectors ...string) string {
	for _, c := range b.classes {
		if c.Name == name {
			return name
		}
	}
	c := &resourceapi.DeviceClass{}
	c.APIVersion, c.Kind = "resource.k8s.io/v1", "DeviceClass"
	c.Name = name
	for _, s := range selectors {
		c.Spec.Selectors = append(c.Spec.Selectors, celSelector(s))
	}
	if config {
		c.Spec.Config = append(c.Spec.Config, resourceapi.DeviceClassConfiguration{DeviceConfiguration: opaque(name, "class")})
	}
	b.classes = append(b.classes, c)
	return name
}

func opaque(driverish, source string) resourceapi.DeviceConfiguration {
	driver := driverish
	switch driverish {
	case "gpu", "gpu-big", "gpu-any", "gpu-shared":
		driver = gpuDriver
	case "nic":
		driver = nicDriver
	case "mig.nvidia.com", "gpu.nvidia.com":
		driver = nvDriver
	}
	if driver == "everything" {
		driver = gpuDriver
	}
	params := fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Config","source":"%s","sharing":{"strategy":"TimeSlicing"}}`, driver, source)
	return resourceapi.DeviceConfiguration{Opaque: &resourceapi.OpaqueDeviceConfiguration{
		Driver:     driver,
		Parameters: runtimeRaw(params),
	}}
}

func celSelector(expr string) resourceapi.DeviceSelector {
	return resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: expr}}
}

func (b *builder) newClaim(namespace, name string) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{}
	c.APIVersion, c.Kind = "resource.k8s.io/v1", "ResourceClaim"
	c.Namespace = namespace
	c.Name = name
	b.uidCounter++
	c.UID = types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012d", uint32(b.seed), b.uidCounter))
	return c
}

func (b *builder) ensureAdminNamespace() {
	for _, ns := range b.namespaces {
		if ns.Name == adminNS {
			return
		}
	}
	ns := &corev1.Namespace{}
	ns.APIVersion, ns.Kind = "v1", "Namespace"
	ns.Name = adminNS
	ns.Labels = map[string]string{"resource.kubernetes.io/admin-access": "true"}
	b.namespaces = append(b.namespaces, ns)
}

// exact builds an ExactCount (count > 0) or All (count == 0) request. The
// defaulted fields are sometimes left out to exercise API defaulting.
func (b *builder) exact(name, class string, count int, selectors ...string) resourceapi.DeviceRequest {
	e := &resourceapi.ExactDeviceRequest{DeviceClassName: class}
	if count == 0 {
		e.AllocationMode = resourceapi.DeviceAllocationModeAll
	} else {
		if count != 1 || b.r.chance(30) {
			e.Count = int64(count)
		}
		if b.r.chance(30) {
			e.AllocationMode = resourceapi.DeviceAllocationModeExactCount
		}
	}
	for _, s := range selectors {
		e.Selectors = append(e.Selectors, celSelector(s))
	}
	return resourceapi.DeviceRequest{Name: name, Exactly: e}
}

func (b *builder) sub(name, class string, count int, selectors ...string) resourceapi.DeviceSubRequest {
	s := resourceapi.DeviceSubRequest{Name: name, DeviceClassName: class}
	if count == 0 {
		s.AllocationMode = resourceapi.DeviceAllocationModeAll
	} else if count != 1 || b.r.chance(30) {
		s.Count = int64(count)
	}
	for _, sel := range selectors {
		s.Selectors = append(s.Selectors, celSelector(sel))
	}
	return s
}

func matchConstraint(attr string, requests ...string) resourceapi.DeviceConstraint {
	a := resourceapi.FullyQualifiedName(attr)
	return resourceapi.DeviceConstraint{Requests: requests, MatchAttribute: &a}
}

func distinctConstraint(attr string, requests ...string) resourceapi.DeviceConstraint {
	a := resourceapi.FullyQualifiedName(attr)
	return resourceapi.DeviceConstraint{Requests: requests, DistinctAttribute: &a}
}

// shareID returns a deterministic UUID-shaped share ID.
func (b *builder) shareID() *types.UID {
	b.uidCounter++
	u := types.UID(fmt.Sprintf("%08x-5a5a-4000-8000-%012d", uint32(b.seed>>8), b.uidCounter))
	return &u
}

// --- pre-allocated claims ---------------------------------------------------

// preallocate creates allocated claims that hold some usable devices of the
// given kinds. Returns the number of claims created.
func (b *builder) preallocate(class string, kinds map[string]bool, maxClaims, maxDevices int) {
	taken := map[*invDevice]bool{}
	for _, c := range b.allocated {
		for _, r := range c.Status.Allocation.Devices.Results {
			for _, d := range b.inv {
				if d.driver() == r.Driver && d.pool() == r.Pool && d.dev().Name == r.Device {
					taken[d] = true
				}
			}
		}
	}
	n := b.r.intn(maxClaims + 1)
	for i := 0; i < n; i++ {
		var candidates []*invDevice
		for _, d := range b.inv {
			if d.usable && kinds[d.kind] && !taken[d] && len(d.dev().Taints) == 0 {
				candidates = append(candidates, d)
			}
		}
		if len(candidates) == 0 {
			return
		}
		shuffle(b.r, candidates)
		want := b.r.between(1, maxDevices)
		admin := b.r.chance(10)
		claim := b.newClaim("default", fmt.Sprintf("allocated-%d", len(b.allocated)))
		if admin {
			claim.Namespace = adminNS
			b.ensureAdminNamespace()
		}
		var results []resourceapi.DeviceRequestAllocationResult
		for _, d := range candidates {
			if len(results) == want {
				break
			}
			if b.mig != nil && (d.kind == "mig" || d.kind == "fullgpu") && !admin {
				if !b.mig.tryUse(d) {
					continue
				}
			}
			res := resourceapi.DeviceRequestAllocationResult{Request: "req", Driver: d.driver(), Pool: d.pool(), Device: d.dev().Name}
			if admin {
				res.AdminAccess = ptr.To(true)
			} else if ptr.Deref(d.dev().AllowMultipleAllocations, false) {
				res.ShareID = b.shareID()
				res.ConsumedCapacity = b.partialConsumption(d.dev())
			} else {
				taken[d] = true
			}
			results = append(results, res)
		}
		if len(results) == 0 {
			continue
		}
		req := b.exact("req", class, len(results))
		if admin {
			req.Exactly.AdminAccess = ptr.To(true)
		}
		claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{req}
		claim.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: results}}
		b.allocated = append(b.allocated, claim)
	}
}

// partialConsumption returns what an earlier claim consumed of a shared
// device: for each capacity a valid request amount (policy default, a
// valid value or a step), never more than the value.
func (b *builder) partialConsumption(d *resourceapi.Device) map[resourceapi.QualifiedName]resource.Quantity {
	out := map[resourceapi.QualifiedName]resource.Quantity{}
	for name, c := range d.Capacity {
		switch {
		case c.RequestPolicy == nil:
			out[name] = c.Value.DeepCopy()
		case len(c.RequestPolicy.ValidValues) > 0 && b.r.chance(30):
			out[name] = c.RequestPolicy.ValidValues[b.r.intn(len(c.RequestPolicy.ValidValues))].DeepCopy()
		case c.RequestPolicy.Default != nil:
			out[name] = c.RequestPolicy.Default.DeepCopy()
		}
	}
	return out
}

// --- taints -----------------------------------------------------------------

var taintMenu = []resourceapi.DeviceTaint{
	{Key: "example.com/unhealthy", Value: "ecc-errors", Effect: resourceapi.DeviceTaintEffectNoSchedule},
	{Key: "example.com/maintenance", Effect: resourceapi.DeviceTaintEffectNoExecute},
	{Key: "example.com/degraded", Value: "thermal", Effect: resourceapi.DeviceTaintEffectNone},
	{Key: "gpu.example.com/reserved", Value: "team-b", Effect: resourceapi.DeviceTaintEffectNoSchedule},
}

func (b *builder) useTaint() resourceapi.DeviceTaint {
	t := taintMenu[b.r.intn(len(taintMenu))]
	for _, have := range b.taints {
		if have.Key == t.Key && have.Effect == t.Effect {
			return t
		}
	}
	b.taints = append(b.taints, t)
	return t
}

// taintRandomDevices puts taints on up to n devices, directly or through a
// DeviceTaintRule.
func (b *builder) taintRandomDevices(n int) {
	if len(b.inv) == 0 {
		return
	}
	for i := 0; i < n; i++ {
		d := b.inv[b.r.intn(len(b.inv))]
		t := b.useTaint()
		if b.r.chance(50) && len(d.dev().Taints) < 4 {
			d.dev().Taints = append(d.dev().Taints, t)
			continue
		}
		rule := &resourceapi.DeviceTaintRule{}
		rule.APIVersion, rule.Kind = "resource.k8s.io/v1", "DeviceTaintRule"
		rule.Name = fmt.Sprintf("taint-rule-%d", len(b.rules))
		sel := &resourceapi.DeviceTaintSelector{Driver: ptr.To(d.driver())}
		switch b.r.intn(3) {
		case 0:
			sel.Pool = ptr.To(d.pool())
			sel.Device = ptr.To(d.dev().Name)
		case 1:
			sel.Device = ptr.To(d.dev().Name)
		case 2:
			sel.Pool = ptr.To(d.pool())
		}
		rule.Spec.DeviceSelector = sel
		rule.Spec.Taint = t
		b.rules = append(b.rules, rule)
	}
}

// toleration returns a toleration for one of the taints in use (or a
// useless one).
func (b *builder) toleration() resourceapi.DeviceToleration {
	if len(b.taints) == 0 || b.r.chance(15) {
		return resourceapi.DeviceToleration{Key: "example.com/other", Operator: resourceapi.DeviceTolerationOpExists}
	}
	t := b.taints[b.r.intn(len(b.taints))]
	switch b.r.intn(4) {
	case 0:
		tol := resourceapi.DeviceToleration{Key: t.Key, Operator: resourceapi.DeviceTolerationOpExists}
		if b.r.chance(50) {
			tol.Effect = t.Effect
		}
		return tol
	case 1:
		tol := resourceapi.DeviceToleration{Key: t.Key, Value: t.Value, Effect: t.Effect}
		if b.r.chance(50) {
			tol.Operator = resourceapi.DeviceTolerationOpEqual
		}
		if t.Effect == resourceapi.DeviceTaintEffectNoExecute && b.r.chance(50) {
			tol.TolerationSeconds = ptr.To(int64(300))
		}
		return tol
	case 2:
		// Wrong value: does not tolerate (unless the value is empty).
		return resourceapi.DeviceToleration{Key: t.Key, Operator: resourceapi.DeviceTolerationOpEqual, Value: "other"}
	default:
		// Tolerate everything.
		return resourceapi.DeviceToleration{Operator: resourceapi.DeviceTolerationOpExists}
	}
}

func (b *builder) addTolerations(req *resourceapi.DeviceRequest, percent int) {
	if !b.r.chance(percent) {
		return
	}
	n := b.r.between(1, 2)
	var tols []resourceapi.DeviceToleration
	for i := 0; i < n; i++ {
		tols = append(tols, b.toleration())
	}
	if req.Exactly != nil {
		req.Exactly.Tolerations = tols
	}
	for i := range req.FirstAvailable {
		if b.r.chance(70) {
			req.FirstAvailable[i].Tolerations = tols
		}
	}
}

// --- pool sprinkles ---------------------------------------------------------

// invalidPool adds a pool with duplicate device names (invalid).
func (b *builder) invalidPool() {
	devs1 := b.gpuDevices(2, "dup", 0)
	devs2 := b.gpuDevices(1, "dup", 0)
	pool := "broken-" + strconv.Itoa(b.r.intn(3))
	b.addSlice(pool+"-a", gpuDriver, pool, 1, 2, onNode(targetNode), devs1, false, "gpu")
	b.addSlice(pool+"-b", gpuDriver, pool, 1, 2, onNode(targetNode), devs2, false, "gpu")
}

// otherNodePool adds a pool that belongs to another node.
func (b *builder) otherNodePool() {
	b.addSlice("node-2-gpus", gpuDriver, otherNode, 1, 1, onNode(otherNode), b.gpuDevices(2, "gpu", 0), true, "gpu")
}

func runtimeRaw(s string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(s)} }
