package gen

import (
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
)

// BenchCase is one scenario class of the side-by-side benchmark. Data is
// a complete scenario file (all objects resource.k8s.io/v1, build order).
type BenchCase struct {
	// Name is a short identifier ("gpu-1-of-8").
	Name string
	// Title is the class as issue 3 names it.
	Title string
	Data  []byte
	// PerNode: the scenario holds one claim template ("claim") and the
	// nodes node-0 .. node-<PerNode-1>; the benchmark allocates a copy of
	// the claim on each node in turn, committing every result, for
	// Rounds rounds. Zero for the single-allocation classes.
	PerNode int
	Rounds  int
}

// BenchCases returns the benchmark scenario classes.
func BenchCases() []BenchCase {
	return []BenchCase{
		benchGPU1of8(),
		benchMatchAttribute(),
		benchMIG(),
		bench32of31(),
		benchManyNodes(),
	}
}

func benchBuilder() *builder {
	b := &builder{r: newRNG(0), seed: 0, family: "bench", plain: true}
	b.nodes = append(b.nodes, node(targetNode, "zone-a", "rack-1"))
	return b
}

// simpleGPUs returns n identical-looking GPUs; numa gives each one's NUMA node.
func simpleGPUs(n int, numa func(int) int64) []resourceapi.Device {
	devs := make([]resourceapi.Device, n)
	for i := range devs {
		devs[i] = resourceapi.Device{
			Name: fmt.Sprintf("gpu-%d", i),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"model":                           sAttr("h100"),
				"numa":                            iAttr(numa(i)),
				"uuid":                            sAttr(fmt.Sprintf("GPU-bench-%d", i)),
				"resource.kubernetes.io/pcieRoot": sAttr(fmt.Sprintf("pci0000:%02x", numa(i))),
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": capOf("80Gi")},
		}
	}
	return devs
}

func (b *builder) benchData(name string) []byte {
	return b.serialize(name, "yaml")
}

func benchGPU1of8() BenchCase {
	b := benchBuilder()
	b.addSlice("node-1-gpus", gpuDriver, targetNode, 1, 1, onNode(targetNode), simpleGPUs(8, func(i int) int64 { return int64(i / 4) }), true, "gpu")
	b.addClass("gpu", false, `device.driver == "gpu.example.com"`)
	c := b.newClaim("default", "claim")
	c.Spec.Devices.Requests = []resourceapi.DeviceRequest{b.exact("gpu", "gpu", 1, `device.attributes["gpu.example.com"].model == "h100"`)}
	b.claims = append(b.claims, c)
	return BenchCase{Name: "gpu-1-of-8", Title: "1 GPU from 8 on a node", Data: b.benchData("bench-gpu-1-of-8")}
}

// benchMatchAttribute: 8 GPUs, NUMA nodes 0,0,0,1,1,1,1,1, gpu-1 already in
// use; 4 GPUs on one NUMA node means trying every combination that starts
// on NUMA node 0 before succeeding with gpu-3..gpu-6.
func benchMatchAttribute() BenchCase {
	b := benchBuilder()
	numa := []int64{0, 0, 0, 1, 1, 1, 1, 1}
	b.addSlice("node-1-gpus", gpuDriver, targetNode, 1, 1, onNode(targetNode), simpleGPUs(8, func(i int) int64 { return numa[i] }), true, "gpu")
	b.addClass("gpu", false, `device.driver == "gpu.example.com"`)
	used := b.newClaim("default", "in-use")
	used.Spec.Devices.Requests = []resourceapi.DeviceRequest{b.exact("gpu", "gpu", 1)}
	used.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: gpuDriver, Pool: targetNode, Device: "gpu-1"},
	}}}
	b.allocated = append(b.allocated, used)
	c := b.newClaim("default", "claim")
	c.Spec.Devices.Requests = []resourceapi.DeviceRequest{b.exact("gpus", "gpu", 4)}
	c.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{matchConstraint("gpu.example.com/numa")}
	b.claims = append(b.claims, c)
	return BenchCase{Name: "gpu-4-matchattr-of-8", Title: "4 GPUs with matchAttribute on an 8-GPU node", Data: b.benchData("bench-gpu-4-matchattr-of-8")}
}

// benchMIG: 8 H100 80GB in DynamicMIG mode (208 devices in 9 slices); GPUs
// 0-6 are fully allocated, GPU 7 has a 1g.10gb at memory slice 0; a
// 3g.40gb fits only at placement 4 of GPU 7.
func benchMIG() BenchCase {
	b := benchBuilder()
	model := migModels["h100-80gb"]
	b.migNode(model, 8)
	b.addClass("mig.nvidia.com", false, `device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'`)
	b.addClass("gpu.nvidia.com", false, `device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'`)
	var results []resourceapi.DeviceRequestAllocationResult
	for g := 0; g < 7; g++ {
		results = append(results, resourceapi.DeviceRequestAllocationResult{Request: "gpus", Driver: nvDriver, Pool: targetNode, Device: fmt.Sprintf("gpu-%d", g)})
	}
	full := b.newClaim("default", "full-gpus")
	full.Spec.Devices.Requests = []resourceapi.DeviceRequest{b.exact("gpus", "gpu.nvidia.com", 7)}
	full.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: results}}
	small := b.newClaim("default", "small-mig")
	small.Spec.Devices.Requests = []resourceapi.DeviceRequest{b.exact("mig", "mig.nvidia.com", 1)}
	small.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
		{Request: "mig", Driver: nvDriver, Pool: targetNode, Device: migDeviceName(7, model.profiles[0], 0)},
	}}}
	b.allocated = append(b.allocated, full, small)
	c := b.newClaim("default", "claim")
	c.Spec.Devices.Requests = []resourceapi.DeviceRequest{b.exact("mig", "mig.nvidia.com", 1, `device.attributes["gpu.nvidia.com"].profile == "3g.40gb"`)}
	b.claims = append(b.claims, c)
	return BenchCase{Name: "mig-h100x8", Title: "MIG profile from partitionable H100s", Data: b.benchData("bench-mig-h100x8")}
}

// bench32of31: kubernetes issue 131730; every combination of the 31
// devices is tried before giving up.
func bench32of31() BenchCase {
	b := benchBuilder()
	b.addSlice("node-1-gpus", gpuDriver, targetNode, 1, 1, onNode(targetNode), simpleGPUs(31, func(i int) int64 { return int64(i % 2) }), true, "gpu")
	b.addClass("gpu", false, `device.driver == "gpu.example.com"`)
	c := b.newClaim("default", "claim")
	c.Spec.Devices.Requests = []resourceapi.DeviceRequest{b.exact("gpus", "gpu", 32)}
	b.claims = append(b.claims, c)
	return BenchCase{Name: "32-of-31", Title: "32 devices asked, 31 present", Data: b.benchData("bench-32-of-31")}
}

// benchManyNodes: scheduler_perf shape, 500 nodes with one 10-device slice
// each.
func benchManyNodes() BenchCase {
	const nodes, perNode = 500, 10
	b := &builder{r: newRNG(0), family: "bench", plain: true}
	for n := 0; n < nodes; n++ {
		name := fmt.Sprintf("node-%d", n)
		b.nodes = append(b.nodes, node(name, "zone-a", "rack-1"))
		devs := simpleGPUs(perNode, func(i int) int64 { return int64(i / 5) })
		b.addSlice(name+"-gpus", gpuDriver, name, 1, 1, placement{nodeName: name, relevant: true}, devs, true, "gpu")
	}
	b.addClass("gpu", false, `device.driver == "gpu.example.com"`)
	c := b.newClaim("default", "claim")
	c.Spec.Devices.Requests = []resourceapi.DeviceRequest{b.exact("gpu", "gpu", 1)}
	b.claims = append(b.claims, c)
	b.headerNode = "node-0"
	data := b.serialize("bench-500-nodes", "yaml")
	return BenchCase{Name: "500-nodes-x-10", Title: "500 nodes x 10 devices, one claim per node in turn", Data: data, PerNode: nodes, Rounds: perNode}
}
