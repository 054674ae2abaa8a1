package gen

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

var gpuModels = map[string]struct{ memory, cores []string }{
	"a100": {memory: []string{"40Gi", "80Gi"}, cores: []string{"108"}},
	"h100": {memory: []string{"80Gi"}, cores: []string{"132"}},
	"l4":   {memory: []string{"24Gi"}, cores: []string{"58"}},
}

var driverVersions = []string{"535.104.5", "550.54.15", "580.95.5"}

// gpuDevices returns n gpu.example.com devices named prefix-<start+i>.
func (b *builder) gpuDevices(n int, prefix string, start int) []resourceapi.Device {
	mixed := b.r.chance(40)
	base := pick(b.r, "a100", "h100")
	baseVersion := pick(b.r, driverVersions...)
	devices := make([]resourceapi.Device, 0, n)
	for i := 0; i < n; i++ {
		model := base
		if mixed {
			model = pick(b.r, "a100", "h100", "l4")
		}
		version := baseVersion
		if b.r.chance(25) {
			version = pick(b.r, driverVersions...)
		}
		numa := int64(0)
		if i >= (n+1)/2 {
			numa = 1
		}
		if b.r.chance(25) {
			numa = int64(b.r.intn(2))
		}
		spec := gpuModels[model]
		d := resourceapi.Device{
			Name: fmt.Sprintf("%s-%d", prefix, start+i),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"model":                           sAttr(model),
				"numa":                            iAttr(numa),
				"ecc":                             bAttr(b.r.chance(80)),
				"driverVersion":                   vAttr(version),
				"uuid":                            sAttr(fmt.Sprintf("GPU-%04x-%d", b.seed&0xffff, start+i)),
				"resource.kubernetes.io/pcieRoot": sAttr(fmt.Sprintf("pci0000:%02x", numa*2+int64(b.r.intn(2)))),
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
				"memory": capOf(pick(b.r, spec.memory...)),
				"cores":  capOf(pick(b.r, spec.cores...)),
			},
		}
		if b.r.chance(30) {
			d.Attributes["optional"] = sAttr("yes")
		}
		devices = append(devices, d)
	}
	return devices
}

// nicDevices returns n nic.example.com devices. NIC i shares the PCIe root
// of GPU i most of the time (the devices in b.inv so far).
func (b *builder) nicDevices(n int, prefix string) []resourceapi.Device {
	var roots []string
	for _, d := range b.inv {
		if a, ok := d.dev().Attributes["resource.kubernetes.io/pcieRoot"]; ok && a.StringValue != nil {
			roots = append(roots, *a.StringValue)
		}
	}
	devices := make([]resourceapi.Device, 0, n)
	for i := 0; i < n; i++ {
		root := fmt.Sprintf("pci0000:%02x", b.r.intn(4))
		if i < len(roots) && b.r.chance(75) {
			root = roots[i]
		}
		devices = append(devices, resourceapi.Device{
			Name: fmt.Sprintf("%s-%d", prefix, i),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"resource.kubernetes.io/pcieRoot": sAttr(root),
				"speed":                           iAttr(int64(pick(b.r, 100, 200, 400))),
				"rdma":                            bAttr(b.r.chance(70)),
				"firmware":                        vAttr(pick(b.r, "1.4.2", "2.1.0", "2.1.0-rc.1")),
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
				"bandwidth": capOf(pick(b.r, "100G", "200G", "400G")),
			},
		})
	}
	return devices
}

// selectors picks up to max request selectors from a menu, sometimes
// including one that can fail at runtime.
func (b *builder) selectors(menu, errMenu []string, max int) []string {
	var out []string
	n := 0
	switch roll := b.r.intn(100); {
	case roll < 50:
	case roll < 90 || max < 2:
		n = 1
	default:
		n = 2
	}
	for i := min(n, max); i > 0; i-- {
		out = append(out, pick(b.r, menu...))
	}
	if b.errorSelectors && len(errMenu) > 0 && b.r.chance(35) {
		out = append(out, pick(b.r, errMenu...))
	}
	return out
}

// gpuRequest returns one request for gpu.example.com devices: ExactCount,
// All or firstAvailable.
func (b *builder) gpuRequest(name string, classes []string, maxCount int, allowAdmin bool) resourceapi.DeviceRequest {
	class := pick(b.r, classes...)
	switch {
	case b.r.chance(25):
		// firstAvailable: a demanding alternative first, then easier ones.
		n := b.r.between(2, 3)
		req := resourceapi.DeviceRequest{Name: name}
		for i := 0; i < n; i++ {
			count := b.count(maxCount)
			if i == 0 && b.r.chance(50) {
				count = maxCount + 1
			}
			sels := b.selectors(gpuSelectors, gpuErrorSelectors, 2)
			if i == n-1 && b.r.chance(50) {
				count, sels = 1, nil
			}
			if i == 0 && b.r.chance(40) {
				sels = append(sels, `device.attributes["gpu.example.com"].model == "b200"`)
			}
			if b.r.chance(8) {
				count = 0 // All
			}
			req.FirstAvailable = append(req.FirstAvailable, b.sub(fmt.Sprintf("alt%d", i), pick(b.r, classes...), count, sels...))
		}
		return req
	case b.r.chance(10):
		req := b.exact(name, class, 0, b.selectors(gpuSelectors, gpuErrorSelectors, 2)...)
		if allowAdmin && b.r.chance(20) {
			req.Exactly.AdminAccess = ptr.To(true)
		}
		return req
	default:
		req := b.exact(name, class, b.count(maxCount), b.selectors(gpuSelectors, gpuErrorSelectors, 2)...)
		if allowAdmin && b.r.chance(8) {
			req.Exactly.AdminAccess = ptr.To(true)
		}
		return req
	}
}

var gpuConstraintAttrs = []string{
	"gpu.example.com/model",
	"gpu.example.com/numa",
	"gpu.example.com/ecc",
	"gpu.example.com/driverVersion",
	"resource.kubernetes.io/pcieRoot",
	"gpu.example.com/optional",
}

var gpuDistinctAttrs = []string{
	"gpu.example.com/numa",
	"gpu.example.com/uuid",
	"resource.kubernetes.io/pcieRoot",
	"gpu.example.com/model",
}

// gpuClaims adds n claims asking for gpu.example.com devices.
func (b *builder) gpuClaims(n int, classes []string, maxCount int) {
	for i := 0; i < n; i++ {
		claim := b.newClaim("default", fmt.Sprintf("claim-%d", i))
		nreq := b.nClaims(2)
		admin := false
		var names []string
		for j := 0; j < nreq; j++ {
			name := fmt.Sprintf("req-%d", j)
			req := b.gpuRequest(name, classes, maxCount, true)
			if req.Exactly != nil && ptr.Deref(req.Exactly.AdminAccess, false) {
				admin = true
			}
			b.addTolerations(&req, 20)
			claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, req)
			names = append(names, name)
		}
		if admin {
			claim.Namespace = adminNS
			b.ensureAdminNamespace()
		}
		b.constraints(claim, names, gpuConstraintAttrs, gpuDistinctAttrs)
		b.claimConfig(claim, names)
		b.claims = append(b.claims, claim)
	}
}

func (b *builder) constraints(claim *resourceapi.ResourceClaim, names, match, distinct []string) {
	scope := func() []string {
		if len(names) > 1 && b.r.chance(50) {
			return []string{names[b.r.intn(len(names))]}
		}
		if b.r.chance(50) {
			return nil
		}
		return append([]string{}, names...)
	}
	if b.r.chance(25) {
		claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, matchConstraint(pick(b.r, match...), scope()...))
	}
	if b.r.chance(12) {
		claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, distinctConstraint(pick(b.r, distinct...), scope()...))
	}
}

func (b *builder) claimConfig(claim *resourceapi.ResourceClaim, names []string) {
	if !b.r.chance(15) {
		return
	}
	cfg := resourceapi.DeviceClaimConfiguration{DeviceConfiguration: opaque(gpuDriver, "claim")}
	if b.r.chance(50) {
		cfg.Requests = []string{names[b.r.intn(len(names))]}
	}
	claim.Spec.Devices.Config = append(claim.Spec.Devices.Config, cfg)
}

func (b *builder) gpuClasses() []string {
	classes := []string{b.addClass("gpu", b.r.chance(30), `device.driver == "gpu.example.com"`)}
	if b.r.chance(30) {
		classes = append(classes, b.addClass("gpu-big", b.r.chance(30), `device.driver == "gpu.example.com"`, `device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0`))
	}
	if b.r.chance(5) {
		// A class without selectors matches every device of every driver.
		classes = append(classes, b.addClass("everything", false))
	}
	return classes
}

// --- families -----------------------------------------------------------

// familyBasic: one node-local GPU pool, several claims and requests.
func (b *builder) familyBasic() {
	n := b.r.between(2, 8)
	devs := b.gpuDevices(n, "gpu", 0)
	if n >= 4 && b.r.chance(30) {
		half := n / 2
		b.addSlice("node-1-gpus-a", gpuDriver, targetNode, 1, 2, onNode(targetNode), devs[:half], true, "gpu")
		b.addSlice("node-1-gpus-b", gpuDriver, targetNode, 1, 2, onNode(targetNode), devs[half:], true, "gpu")
	} else {
		b.addSlice("node-1-gpus", gpuDriver, targetNode, 1, 1, onNode(targetNode), devs, true, "gpu")
	}
	classes := b.gpuClasses()
	b.preallocate("gpu", map[string]bool{"gpu": true}, 2, 2)
	b.gpuClaims(b.nClaims(3), classes, 3)
}

// familyNetwork: node-local GPUs plus network-attached NICs published with
// nodeSelector, allNodes or per-device node selection.
func (b *builder) familyNetwork() {
	b.addSlice("node-1-gpus", gpuDriver, targetNode, 1, 1, onNode(targetNode), b.gpuDevices(b.r.between(2, 4), "gpu", 0), true, "gpu")
	nics := b.nicDevices(b.r.between(2, 4), "nic")
	hasNode := false
	for _, n := range b.nodes {
		if n.Name == targetNode {
			hasNode = true
		}
	}
	var where placement
	switch b.r.intn(6) {
	case 0:
		where = placement{selector: nodeSelector(corev1.NodeSelectorRequirement{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-a"}}, nil), relevant: hasNode}
	case 1:
		where = placement{selector: nodeSelector(corev1.NodeSelectorRequirement{}, &corev1.NodeSelectorRequirement{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{targetNode}}), relevant: true}
	case 2:
		where = placement{selector: nodeSelector(corev1.NodeSelectorRequirement{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-b"}}, nil)}
	case 3:
		where = placement{selector: nodeSelector(corev1.NodeSelectorRequirement{Key: "example.com/rack", Operator: corev1.NodeSelectorOpExists}, nil), relevant: hasNode}
	case 4:
		where = placement{allNodes: true, relevant: true}
	default:
		where = placement{perDevice: true}
		for i := range nics {
			switch b.r.intn(4) {
			case 0:
				nics[i].NodeName = ptr.To(targetNode)
			case 1:
				nics[i].NodeName = ptr.To(otherNode)
			case 2:
				nics[i].AllNodes = ptr.To(true)
			default:
				nics[i].NodeSelector = nodeSelector(corev1.NodeSelectorRequirement{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{pick(b.r, "zone-a", "zone-b")}}, nil)
			}
		}
	}
	pool := pick(b.r, "fabric", "rack-1-nics")
	b.addSlice(pool+"-nics", nicDriver, pool, 1, 1, where, nics, true, "nic")
	gpuClass := b.addClass("gpu", false, `device.driver == "gpu.example.com"`)
	nicClass := b.addClass("nic", b.r.chance(40), `device.driver == "nic.example.com"`)
	b.preallocate("nic", map[string]bool{"nic": true}, 1, 1)
	b.preallocate("gpu", map[string]bool{"gpu": true}, 1, 2)

	nclaims := b.nClaims(2)
	for i := 0; i < nclaims; i++ {
		claim := b.newClaim("default", fmt.Sprintf("claim-%d", i))
		gpuReq := b.gpuRequest("gpu", []string{gpuClass}, 2, false)
		nicReq := b.exact("nic", nicClass, b.count(2), b.selectors(nicSelectors, nicErrorSelectors, 1)...)
		if b.r.chance(8) {
			nicReq = b.exact("nic", nicClass, 0)
		}
		claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{gpuReq, nicReq}
		if b.r.chance(25) {
			claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{nicReq, gpuReq}
		}
		if b.r.chance(70) {
			claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, matchConstraint("resource.kubernetes.io/pcieRoot", pick(b.r, []string(nil), []string{"gpu", "nic"})...))
		}
		if b.r.chance(15) {
			claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, matchConstraint(pick(b.r, "nic.example.com/rdma", "gpu.example.com/numa")))
		}
		b.claimConfig(claim, []string{"gpu", "nic"})
		b.claims = append(b.claims, claim)
	}
}

func nodeSelector(expr corev1.NodeSelectorRequirement, field *corev1.NodeSelectorRequirement) *corev1.NodeSelector {
	term := corev1.NodeSelectorTerm{}
	if expr.Key != "" {
		term.MatchExpressions = []corev1.NodeSelectorRequirement{expr}
	}
	if field != nil {
		term.MatchFields = []corev1.NodeSelectorRequirement{*field}
	}
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
}

// familyShared: consumable capacity (allowMultipleAllocations) with
// request policies, plus a few exclusive devices.
func (b *builder) familyShared() {
	n := b.r.between(1, 3)
	var devs []resourceapi.Device
	for i := 0; i < n; i++ {
		mem := pick(b.r, "40Gi", "80Gi")
		d := resourceapi.Device{
			Name:                     fmt.Sprintf("vgpu-%d", i),
			AllowMultipleAllocations: ptr.To(true),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"model":                           sAttr(pick(b.r, "a100", "h100")),
				"numa":                            iAttr(int64(i % 2)),
				"uuid":                            sAttr(fmt.Sprintf("GPU-%04x-%d", b.seed&0xffff, i)),
				"resource.kubernetes.io/pcieRoot": sAttr(fmt.Sprintf("pci0000:%02x", i)),
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
				"memory": {Value: qty(mem), RequestPolicy: &resourceapi.CapacityRequestPolicy{
					Default:    qptr("4Gi"),
					ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: qptr("1Gi"), Max: qptr(mem), Step: qptr("1Gi")},
				}},
				"compute": {Value: qty("100"), RequestPolicy: &resourceapi.CapacityRequestPolicy{
					Default:     qptr("10"),
					ValidValues: []resource.Quantity{qty("10"), qty("25"), qty("50"), qty("100")},
				}},
			},
		}
		if b.r.chance(30) {
			d.Capacity["bandwidth"] = capOf("10G")
		}
		if b.r.chance(25) {
			d.Capacity["cpu"] = resourceapi.DeviceCapacity{Value: qty("4"), RequestPolicy: &resourceapi.CapacityRequestPolicy{
				Default:    qptr("500m"),
				ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: qptr("250m"), Step: qptr("250m")},
			}}
		}
		devs = append(devs, d)
	}
	excl := b.gpuDevices(b.r.intn(3), "gpu", 0)
	all := append(devs, excl...)
	b.addSlice("node-1-vgpus", gpuDriver, targetNode, 1, 1, onNode(targetNode), all, true, "shared")
	for _, d := range b.inv {
		if !ptr.Deref(d.dev().AllowMultipleAllocations, false) {
			d.kind = "gpu"
		}
	}
	sharedClass := b.addClass("gpu-shared", b.r.chance(30), `device.driver == "gpu.example.com" && device.allowMultipleAllocations`)
	gpuClass := b.addClass("gpu", false, `device.driver == "gpu.example.com"`)
	b.preallocate(sharedClass, map[string]bool{"shared": true}, 3, 1)
	b.preallocate(gpuClass, map[string]bool{"gpu": true}, 1, 1)

	memRequests := []string{"1Gi", "2500Mi", "8Gi", "20Gi", "64Gi"}
	computeRequests := []string{"10", "25", "30", "100"}
	nclaims := b.nClaims(3)
	for i := 0; i < nclaims; i++ {
		claim := b.newClaim("default", fmt.Sprintf("claim-%d", i))
		nreq := b.nClaims(2)
		var names []string
		for j := 0; j < nreq; j++ {
			name := fmt.Sprintf("req-%d", j)
			class := sharedClass
			if b.r.chance(20) {
				class = gpuClass
			}
			var req resourceapi.DeviceRequest
			if b.r.chance(20) {
				req = resourceapi.DeviceRequest{Name: name}
				for k := 0; k < 2; k++ {
					s := b.sub(fmt.Sprintf("alt%d", k), class, 1, b.selectors(sharedSelectors, nil, 1)...)
					s.Capacity = b.capacityRequest(class == sharedClass, memRequests, computeRequests)
					req.FirstAvailable = append(req.FirstAvailable, s)
				}
			} else {
				count := 1
				if b.r.chance(20) {
					count = 2
				}
				req = b.exact(name, class, count, b.selectors(sharedSelectors, nil, 1)...)
				req.Exactly.Capacity = b.capacityRequest(class == sharedClass, memRequests, computeRequests)
			}
			claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, req)
			names = append(names, name)
		}
		if len(names) > 1 && b.r.chance(40) {
			claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, distinctConstraint(pick(b.r, "gpu.example.com/uuid", "resource.kubernetes.io/pcieRoot")))
		}
		if b.r.chance(20) {
			claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, matchConstraint(pick(b.r, "gpu.example.com/model", "gpu.example.com/numa")))
		}
		b.claims = append(b.claims, claim)
	}
}

// capacityRequest asks for some of a device's capacity. Exclusive GPUs only
// have memory (and cores); shared ones memory and compute, sometimes cpu and
// bandwidth.
func (b *builder) capacityRequest(shared bool, mem, compute []string) *resourceapi.CapacityRequirements {
	if b.r.chance(20) {
		return nil
	}
	reqs := map[resourceapi.QualifiedName]resource.Quantity{}
	if b.r.chance(80) {
		reqs["memory"] = qty(pick(b.r, mem...))
	}
	if shared && b.r.chance(40) {
		reqs["compute"] = qty(pick(b.r, compute...))
	}
	if shared && b.r.chance(10) {
		reqs["cpu"] = qty(pick(b.r, "300m", "1", "250m"))
	}
	if b.r.chance(5) {
		reqs["bandwidth"] = qty(pick(b.r, "1G", "10G"))
	}
	if len(reqs) == 0 {
		return nil
	}
	return &resourceapi.CapacityRequirements{Requests: reqs}
}

// familyPools: pools split across slices, incomplete pools, replaced
// generations, invalid pools, multi-host pools; "All" requests.
func (b *builder) familyPools() {
	// A complete pool split across slices.
	parts := b.r.between(1, 3)
	start := 0
	for p := 0; p < parts; p++ {
		n := b.r.between(1, 3)
		b.addSlice(fmt.Sprintf("node-1-a-%d", p), gpuDriver, "node-1-a", 3, int64(parts), onNode(targetNode), b.gpuDevices(n, "gpu", start), true, "gpu")
		start += n
	}
	if b.r.chance(45) {
		// Incomplete: one slice missing.
		b.addSlice("node-1-b-0", gpuDriver, "node-1-b", 1, 2, onNode(targetNode), b.gpuDevices(b.r.between(1, 2), "gpu", 0), false, "gpu")
	}
	if b.r.chance(45) {
		// Replaced generation: the old slice must be ignored.
		b.addSlice("node-1-c-new", gpuDriver, "node-1-c", 2, 1, onNode(targetNode), b.gpuDevices(b.r.between(1, 2), "gpu", 0), true, "gpu")
		b.addSlice("node-1-c-old", gpuDriver, "node-1-c", 1, 1, onNode(targetNode), b.gpuDevices(b.r.between(1, 2), "gpu", 0), false, "gpu")
	}
	if b.r.chance(20) {
		// Old generation only here, newer one published for the other node:
		// the pool is being replaced and gets dropped.
		b.addSlice("multi-old", gpuDriver, "multi-c", 1, 2, onNode(targetNode), b.gpuDevices(1, "gpu", 0), false, "gpu")
		b.addSlice("multi-new", gpuDriver, "multi-c", 2, 2, onNode(otherNode), b.gpuDevices(1, "gpu", 1), false, "gpu")
	}
	if b.r.chance(30) {
		b.invalidPool()
	}
	if b.r.chance(30) {
		// Multi-host pool: complete, one slice per node.
		b.addSlice("multi-a-1", gpuDriver, "multi-a", 1, 2, onNode(targetNode), b.gpuDevices(b.r.between(1, 2), "gpu", 0), true, "gpu")
		b.addSlice("multi-a-2", gpuDriver, "multi-a", 1, 2, onNode(otherNode), b.gpuDevices(1, "gpu", 5), false, "gpu")
	}
	if b.r.chance(15) {
		// Invalid: a device consumes from an unknown counter set.
		devs := b.gpuDevices(1, "gpu", 0)
		devs[0].ConsumesCounters = []resourceapi.DeviceCounterConsumption{{
			CounterSet: "missing-set",
			Counters:   map[string]resourceapi.Counter{"memory": {Value: qty("1Gi")}},
		}}
		b.addSlice("node-1-d", gpuDriver, "node-1-d", 1, 1, onNode(targetNode), devs, false, "gpu")
	}
	if b.r.chance(20) {
		// A second driver with the same pool name.
		b.addSlice("nic-node-1-a", nicDriver, "node-1-a", 1, 1, onNode(targetNode), b.nicDevices(b.r.between(1, 2), "nic"), true, "nic")
		b.addClass("nic", false, `device.driver == "nic.example.com"`)
	}
	classes := b.gpuClasses()
	b.preallocate("gpu", map[string]bool{"gpu": true}, 1, 2)
	b.gpuClaims(b.nClaims(2), classes, 3)
}

// familyTaints: device taints (direct and DeviceTaintRules), tolerations,
// admin access.
func (b *builder) familyTaints() {
	n := b.r.between(3, 6)
	b.addSlice("node-1-gpus", gpuDriver, targetNode, 1, 1, onNode(targetNode), b.gpuDevices(n, "gpu", 0), true, "gpu")
	b.taintRandomDevices(b.r.between(1, 3))
	classes := []string{b.addClass("gpu", false, `device.driver == "gpu.example.com"`)}
	b.preallocate("gpu", map[string]bool{"gpu": true}, 1, 2)
	nclaims := b.nClaims(2)
	for i := 0; i < nclaims; i++ {
		claim := b.newClaim("default", fmt.Sprintf("claim-%d", i))
		req := b.gpuRequest("gpu", classes, 3, true)
		if req.Exactly != nil && b.r.chance(20) {
			req.Exactly.AdminAccess = ptr.To(true)
		}
		if req.Exactly != nil && ptr.Deref(req.Exactly.AdminAccess, false) {
			claim.Namespace = adminNS
			b.ensureAdminNamespace()
		}
		b.addTolerations(&req, 65)
		claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{req}
		b.claims = append(b.claims, claim)
	}
}

// count returns a device count in [1, max], mostly 1.
func (b *builder) count(max int) int {
	switch roll := b.r.intn(100); {
	case roll < 60 || max < 2:
		return 1
	case roll < 90 || max < 3:
		return 2
	default:
		return b.r.between(3, max)
	}
}

// nClaims returns how many claims to allocate together, mostly 1.
func (b *builder) nClaims(max int) int {
	switch roll := b.r.intn(100); {
	case roll < 60 || max < 2:
		return 1
	case roll < 90 || max < 3:
		return 2
	default:
		return 3
	}
}
