package gen

import (
	"fmt"
	"sort"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// MIG geometry of real GPUs (shared/design/reference/nvidia-dra-driver.md
// §18.2) and the NVIDIA DRA driver's DynamicMIG publishing (§9.2-9.4):
// one counter set per GPU (per-dimension maxima plus one counter per memory
// slice), one abstract device per (profile, placement), the full GPU
// consuming every counter, "split" slice layout (a counter-set slice plus one
// device slice per GPU, all in the node's pool).

type migProfile struct {
	name                       string
	id                         int
	starts                     []int
	size                       int // memory slices
	sm, ce, dec, enc, jpg, ofa int64
	memMi                      int64
}

type gpuModel struct {
	product, arch, cc string
	// fullGPU: Hopper and later offer the full GPU next to its partitions;
	// an Ampere GPU with MIG enabled only offers partitions.
	fullGPU  bool
	profiles []migProfile
}

var all7 = []int{0, 1, 2, 3, 4, 5, 6}

var migModels = map[string]gpuModel{
	"h100-80gb": {
		product: "NVIDIA H100 80GB HBM3", arch: "Hopper", cc: "9.0.0", fullGPU: true,
		profiles: []migProfile{
			{"1g.10gb", 19, all7, 1, 16, 1, 1, 0, 1, 0, 9984},
			{"1g.10gb+me", 20, all7, 1, 16, 1, 1, 0, 1, 1, 9984},
			{"1g.20gb", 15, []int{0, 2, 4, 6}, 2, 26, 1, 1, 0, 1, 0, 20096},
			{"2g.20gb", 14, []int{0, 2, 4}, 2, 32, 2, 2, 0, 2, 0, 20096},
			{"3g.40gb", 9, []int{0, 4}, 4, 60, 3, 3, 0, 3, 0, 40448},
			{"4g.40gb", 5, []int{0}, 4, 64, 4, 4, 0, 4, 0, 40448},
			{"7g.80gb", 0, []int{0}, 8, 132, 8, 7, 0, 7, 1, 81152},
		},
	},
	"a100-40gb": {
		product: "NVIDIA A100-SXM4-40GB", arch: "Ampere", cc: "8.0.0", fullGPU: false,
		profiles: []migProfile{
			{"1g.5gb", 19, all7, 1, 14, 1, 0, 0, 0, 0, 4864},
			{"1g.5gb+me", 20, all7, 1, 14, 1, 1, 0, 1, 1, 4864},
			{"1g.10gb", 15, []int{0, 2, 4, 6}, 2, 14, 1, 1, 0, 0, 0, 9984},
			{"2g.10gb", 14, []int{0, 2, 4}, 2, 28, 2, 1, 0, 0, 0, 9984},
			{"3g.20gb", 9, []int{0, 4}, 4, 42, 3, 2, 0, 0, 0, 20096},
			{"4g.20gb", 5, []int{0}, 4, 56, 4, 2, 0, 0, 0, 20096},
			{"7g.40gb", 0, []int{0}, 8, 98, 7, 5, 0, 1, 1, 40448},
		},
	},
}

const memorySlices = 8

// counterNames in the order the driver converts capacity names.
var counterOf = map[string]string{
	"multiprocessors": "multiprocessors",
	"copyEngines":     "copy-engines",
	"decoders":        "decoders",
	"encoders":        "encoders",
	"jpegEngines":     "jpeg-engines",
	"ofaEngines":      "ofa-engines",
	"memory":          "memory",
}

func (p migProfile) capacities() map[string]resource.Quantity {
	return map[string]resource.Quantity{
		"multiprocessors": *resource.NewQuantity(p.sm, resource.DecimalSI),
		"copyEngines":     *resource.NewQuantity(p.ce, resource.DecimalSI),
		"decoders":        *resource.NewQuantity(p.dec, resource.DecimalSI),
		"encoders":        *resource.NewQuantity(p.enc, resource.DecimalSI),
		"jpegEngines":     *resource.NewQuantity(p.jpg, resource.DecimalSI),
		"ofaEngines":      *resource.NewQuantity(p.ofa, resource.DecimalSI),
		"memory":          resource.MustParse(fmt.Sprintf("%dMi", p.memMi)),
	}
}

// maxProfile is the per-dimension maximum over all profiles.
func (m gpuModel) maxProfile() migProfile {
	var x migProfile
	for _, p := range m.profiles {
		x.sm, x.ce, x.dec = max(x.sm, p.sm), max(x.ce, p.ce), max(x.dec, p.dec)
		x.enc, x.jpg, x.ofa = max(x.enc, p.enc), max(x.jpg, p.jpg), max(x.ofa, p.ofa)
		x.memMi = max(x.memMi, p.memMi)
	}
	return x
}

func counterSetName(gpu int) string { return fmt.Sprintf("gpu-%d-counter-set", gpu) }

func migDeviceName(gpu int, p migProfile, start int) string {
	profile := strings.NewReplacer(".", "", "+", "-").Replace(p.name)
	return fmt.Sprintf("gpu-%d-mig-%s-%d-%d", gpu, profile, p.id, start)
}

// consumption is what a device takes from its GPU's counter set.
func consumption(p migProfile, start, size int) map[string]resourceapi.Counter {
	out := map[string]resourceapi.Counter{}
	for name, q := range p.capacities() {
		out[counterOf[name]] = resourceapi.Counter{Value: q}
	}
	for i := start; i < start+size; i++ {
		out[fmt.Sprintf("memory-slice-%d", i)] = resourceapi.Counter{Value: resource.MustParse("1")}
	}
	return out
}

type migState struct {
	model gpuModel
	// remaining counters per GPU (what pre-allocations left).
	remaining []map[string]resource.Quantity
	consumes  map[*invDevice]map[string]resourceapi.Counter
}

// tryUse reserves the device's counters if they are all still available.
func (m *migState) tryUse(d *invDevice) bool {
	need := m.consumes[d]
	rem := m.remaining[d.gpu]
	for name, c := range need {
		have := rem[name]
		if have.Cmp(c.Value) < 0 {
			return false
		}
	}
	for name, c := range need {
		have := rem[name]
		have.Sub(c.Value)
		rem[name] = have
	}
	return true
}

func (b *builder) familyMIG() {
	modelName := pick(b.r, "h100-80gb", "a100-40gb")
	model := migModels[modelName]
	gpus := b.r.between(1, 2)
	b.migNode(model, gpus)
	b.migClaims(model, gpus)
}

// migNode publishes the target node's GPUs in DynamicMIG mode.
func (b *builder) migNode(model gpuModel, gpus int) {
	b.mig = &migState{model: model, consumes: map[*invDevice]map[string]resourceapi.Counter{}}
	maxP := model.maxProfile()

	counters := &resourceapi.ResourceSlice{}
	counters.APIVersion, counters.Kind = "resource.k8s.io/v1", "ResourceSlice"
	counters.Name = "node-1-gpu.nvidia.com-counters"
	counters.Spec.Driver = nvDriver
	counters.Spec.NodeName = ptr.To(targetNode)
	counters.Spec.Pool = resourceapi.ResourcePool{Name: targetNode, Generation: 1, ResourceSliceCount: int64(gpus + 1)}
	fullConsumption := consumption(maxP, 0, memorySlices)
	for g := 0; g < gpus; g++ {
		set := resourceapi.CounterSet{Name: counterSetName(g), Counters: fullConsumption}
		counters.Spec.SharedCounters = append(counters.Spec.SharedCounters, set)
		rem := map[string]resource.Quantity{}
		for k, v := range fullConsumption {
			rem[k] = v.Value.DeepCopy()
		}
		b.mig.remaining = append(b.mig.remaining, rem)
	}
	b.slices = append(b.slices, counters)

	for g := 0; g < gpus; g++ {
		uuid := fmt.Sprintf("GPU-%08x-%04d-4000-8000-%012d", uint32(b.seed), g, g)
		common := func() map[resourceapi.QualifiedName]resourceapi.DeviceAttribute {
			return map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"productName":                     sAttr(model.product),
				"brand":                           sAttr("Nvidia"),
				"architecture":                    sAttr(model.arch),
				"cudaComputeCapability":           vAttr(model.cc),
				"driverVersion":                   vAttr("580.95.5"),
				"cudaDriverVersion":               vAttr("13.0.0"),
				"resource.kubernetes.io/pciBusID": sAttr(fmt.Sprintf("0000:%02x:00.0", 0x1b+g*0x20)),
				"resource.kubernetes.io/pcieRoot": sAttr(fmt.Sprintf("pci0000:%02x", 0x1a+g*0x20)),
			}
		}
		type entry struct {
			dev   resourceapi.Device
			full  bool
			usage map[string]resourceapi.Counter
		}
		var entries []entry
		if model.fullGPU {
			attrs := common()
			attrs["type"] = sAttr("gpu")
			attrs["uuid"] = sAttr(uuid)
			dev := resourceapi.Device{
				Name:             fmt.Sprintf("gpu-%d", g),
				Attributes:       attrs,
				Capacity:         capacityMap(maxP),
				ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: counterSetName(g), Counters: fullConsumption}},
			}
			entries = append(entries, entry{dev: dev, full: true, usage: fullConsumption})
		}
		for _, p := range model.profiles {
			for _, start := range p.starts {
				attrs := common()
				attrs["type"] = sAttr("mig")
				attrs["profile"] = sAttr(p.name)
				attrs["parentUUID"] = sAttr(uuid)
				use := consumption(p, start, p.size)
				dev := resourceapi.Device{
					Name:             migDeviceName(g, p, start),
					Attributes:       attrs,
					Capacity:         capacityMap(p),
					ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: counterSetName(g), Counters: use}},
				}
				entries = append(entries, entry{dev: dev, usage: use})
			}
		}
		// The driver sorts devices by name inside a slice.
		sort.Slice(entries, func(i, j int) bool { return entries[i].dev.Name < entries[j].dev.Name })
		devs := make([]resourceapi.Device, len(entries))
		for i := range entries {
			devs[i] = entries[i].dev
		}
		s := b.addSlice(fmt.Sprintf("node-1-gpu.nvidia.com-gpu-%d", g), nvDriver, targetNode, 1, int64(gpus+1), onNode(targetNode), devs, true, "mig")
		for _, d := range b.inv {
			if d.slice != s {
				continue
			}
			d.gpu = g
			d.kind = "mig"
			if entries[d.index].full {
				d.kind = "fullgpu"
			}
			b.mig.consumes[d] = entries[d.index].usage
		}
	}

}

// migClaims adds classes, pre-allocations and claims for MIG devices.
func (b *builder) migClaims(model gpuModel, gpus int) {
	migClass := b.addClass("mig.nvidia.com", b.r.chance(30), `device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'`)
	var gpuClass string
	if model.fullGPU {
		gpuClass = b.addClass("gpu.nvidia.com", false, `device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'`)
	}
	anyClass := ""
	if b.errorSelectors {
		anyClass = b.addClass("nvidia-any", false, `device.driver == 'gpu.nvidia.com'`)
	}
	b.preallocate(migClass, map[string]bool{"mig": true}, 2, 2)
	if model.fullGPU && b.r.chance(30) {
		b.preallocate(gpuClass, map[string]bool{"fullgpu": true}, 1, 1)
	}

	profileSel := func() string {
		// Mostly the small profiles (several fit on one GPU).
		p := model.profiles[b.r.intn(len(model.profiles))]
		if b.r.chance(60) {
			p = model.profiles[pick(b.r, 0, 2, 3)]
		}
		return fmt.Sprintf(`device.attributes["gpu.nvidia.com"].profile == %q`, p.name)
	}
	nclaims := b.nClaims(2)
	for i := 0; i < nclaims; i++ {
		claim := b.newClaim("default", fmt.Sprintf("claim-%d", i))
		nreq := b.nClaims(2)
		var names []string
		for j := 0; j < nreq; j++ {
			name := fmt.Sprintf("mig-%d", j)
			var req resourceapi.DeviceRequest
			switch {
			case b.r.chance(25):
				// Biggest first, then smaller partitions.
				req = resourceapi.DeviceRequest{Name: name}
				if model.fullGPU && b.r.chance(50) {
					req.FirstAvailable = append(req.FirstAvailable, b.sub("full", gpuClass, 1))
				}
				req.FirstAvailable = append(req.FirstAvailable,
					b.sub("large", migClass, 1, `device.capacity["gpu.nvidia.com"].multiprocessors.compareTo(quantity("60")) >= 0`),
					b.sub("small", migClass, b.r.between(1, 2), profileSel()))
			case model.fullGPU && b.r.chance(15):
				req = b.exact(name, gpuClass, 1)
			case anyClass != "" && b.r.chance(40):
				req = b.exact(name, anyClass, 1, pick(b.r, migErrorSelectors...))
			case b.r.chance(50):
				req = b.exact(name, migClass, b.count(3), profileSel())
			default:
				req = b.exact(name, migClass, b.count(2), pick(b.r, migSelectorsByCapacity...))
			}
			claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, req)
			names = append(names, name)
		}
		if b.r.chance(20) {
			claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, matchConstraint(pick(b.r, "gpu.nvidia.com/parentUUID", "resource.kubernetes.io/pcieRoot")))
		} else if gpus > 1 && b.r.chance(15) {
			claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, distinctConstraint("gpu.nvidia.com/parentUUID"))
		}
		b.claims = append(b.claims, claim)
	}
}

func capacityMap(p migProfile) map[resourceapi.QualifiedName]resourceapi.DeviceCapacity {
	out := map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{}
	for name, q := range p.capacities() {
		out[resourceapi.QualifiedName(name)] = resourceapi.DeviceCapacity{Value: q}
	}
	return out
}
