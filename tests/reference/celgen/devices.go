// Package celgen generates DRA selector expressions and devices for the
// differential test of draplane's CEL engine against cel-go
// (`draref cel gen`), and runs the side-by-side CEL benchmark
// (`draref cel bench`).
//
// Everything is a pure function of the seed: the same seed yields the same
// devices and expressions forever (own SplitMix64 generator, no map
// iteration on the generating path).
package celgen

import (
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// rng is SplitMix64 (same construction as gen's, separate stream).
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed ^ 0x3c6ef372fe94f82b} }

func (r *rng) u64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int          { return int(r.u64() % uint64(n)) }
func (r *rng) chance(percent int) bool { return r.intn(100) < percent }
func pick[T any](r *rng, xs ...T) T    { return xs[r.intn(len(xs))] }

// The attribute and capacity names expressions draw from, by type. Devices
// publish subsets of them; expressions also ask for names of the wrong type
// and names no device has.
const (
	nvidiaDomain = "gpu.nvidia.com"
	k8sDomain    = "resource.kubernetes.io"
	otherDomain  = "example.com"
)

var (
	stringAttrs  = []string{"productName", "brand", "architecture", "uuid", "type", "profile", "parentUUID", "pcieBusID"}
	intAttrs     = []string{"index", "minor", "parentIndex", "numa", "placementStart", "bigInt", "negInt"}
	boolAttrs    = []string{"migCapable", "migEnabled", "mpsEnabled", "nvlink"}
	versionAttrs = []string{"driverVersion", "cudaDriverVersion", "cudaComputeCapability"}
	listAttrs    = []string{"supportedProfiles", "nvlinkPeers", "laneStatus", "compatibleDrivers"}
	capacities   = []string{"memory", "multiprocessors", "copyEngines", "decoders", "encoders", "jpegEngines", "ofaEngines"}
	// Attributes and capacities in domains other than the driver's.
	foreignStringAttrs = []string{"pcieRoot", "pciBusID"}
	foreignIntAttrs    = []string{"rack"}
	foreignCapacities  = []string{"bandwidth"}
	missingNames       = []string{"missing", "ProductName", "product_name", "memorySize", ""}
)

var (
	products = []string{"NVIDIA A100 80GB PCIe", "NVIDIA A100-SXM4-40GB", "NVIDIA H100 80GB HBM3", "NVIDIA L4", "NVIDIA H200 141GB HBM3e", "Tesla T4"}
	archs    = map[string]string{
		"NVIDIA A100 80GB PCIe": "Ampere", "NVIDIA A100-SXM4-40GB": "Ampere", "NVIDIA H100 80GB HBM3": "Hopper",
		"NVIDIA L4": "Ada Lovelace", "NVIDIA H200 141GB HBM3e": "Hopper", "Tesla T4": "Turing",
	}
	computeCaps = map[string]string{
		"NVIDIA A100 80GB PCIe": "8.0.0", "NVIDIA A100-SXM4-40GB": "8.0.0", "NVIDIA H100 80GB HBM3": "9.0.0",
		"NVIDIA L4": "8.9.0", "NVIDIA H200 141GB HBM3e": "9.0.0", "Tesla T4": "7.5.0",
	}
	memories      = []string{"80Gi", "40Gi", "81920Mi", "141Gi", "24Gi", "16Gi", "9984Mi", "10G", "1.5Gi", "0"}
	migProfiles   = []string{"1g.10gb", "1g.10gb+me", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb", "1g.5gb"}
	driverVers    = []string{"550.54.15", "535.129.3", "560.35.3", "580.95.5", "550.54.15-rc.1", "1.0.0+build.7"}
	cudaVers      = []string{"12.4.0", "12.2.0", "12.6.1", "11.8.0"}
	smallQuantity = []string{"98", "132", "7", "5", "0", "1", "500m", "1e3", "2k", "14"}
)

func q(s string) resourceapi.DeviceCapacity {
	return resourceapi.DeviceCapacity{Value: resource.MustParse(s)}
}

func str(s string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{StringValue: ptr.To(s)}
}
func i64(v int64) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{IntValue: ptr.To(v)}
}
func boolean(b bool) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{BoolValue: ptr.To(b)}
}
func ver(s string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{VersionValue: ptr.To(s)}
}

// Device is a device with the driver that publishes it.
type Device struct {
	Driver string
	Device resourceapi.Device
}

// genDevices returns the devices of one seed: one of each kind, with
// randomised values, so that every expression meets present, missing and
// differently-typed attributes.
func genDevices(r *rng) []Device {
	var out []Device
	// A full NVIDIA GPU.
	product := pick(r, products...)
	gpu := resourceapi.Device{
		Name: "gpu-0",
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"productName":           str(product),
			"brand":                 str(pick(r, "Nvidia", "NVIDIA", "nvidia")),
			"architecture":          str(archs[product]),
			"uuid":                  str(fmt.Sprintf("GPU-%08x-%04x-%04x", uint32(r.u64()), uint16(r.u64()), uint16(r.u64()))),
			"type":                  str("gpu"),
			"index":                 i64(int64(r.intn(8))),
			"minor":                 i64(int64(r.intn(8))),
			"migCapable":            boolean(r.chance(50)),
			"driverVersion":         ver(pick(r, driverVers...)),
			"cudaDriverVersion":     ver(pick(r, cudaVers...)),
			"cudaComputeCapability": ver(computeCaps[product]),
			"pcieBusID":             str(fmt.Sprintf("0000:%02x:00.0", r.intn(256))),
			k8sDomain + "/pcieRoot": str(fmt.Sprintf("pci0000:%02x", r.intn(4))),
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory":          q(pick(r, memories...)),
			"multiprocessors": q(pick(r, "108", "132", "58", "40")),
		},
	}
	if r.chance(80) {
		gpu.Attributes["numa"] = i64(int64(r.intn(4) - 1))
	}
	if r.chance(80) {
		gpu.Attributes["mpsEnabled"] = boolean(r.chance(50))
	}
	if r.chance(80) {
		gpu.Attributes["nvlink"] = boolean(r.chance(50))
		gpu.Attributes["migEnabled"] = boolean(r.chance(50))
	}
	if r.chance(30) {
		gpu.AllowMultipleAllocations = ptr.To(true)
	}
	out = append(out, Device{Driver: nvidiaDomain, Device: gpu})

	// A MIG device.
	profile := pick(r, migProfiles...)
	mig := resourceapi.Device{
		Name: "gpu-0-mig-" + profile,
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"productName":                   str(product),
			"type":                          str("mig"),
			"profile":                       str(profile),
			"parentUUID":                    str(fmt.Sprintf("GPU-%08x", uint32(r.u64()))),
			"parentIndex":                   i64(int64(r.intn(8))),
			"placementStart":                i64(int64(r.intn(7))),
			nvidiaDomain + "/driverVersion": ver(pick(r, driverVers...)),
			"cudaComputeCapability":         ver(computeCaps[product]),
			"migEnabled":                    boolean(true),
			"migCapable":                    boolean(true),
			"mpsEnabled":                    boolean(r.chance(30)),
			"uuid":                          str(fmt.Sprintf("MIG-%08x", uint32(r.u64()))),
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory":          q(pick(r, "9984Mi", "20096Mi", "40448Mi", "4864Mi")),
			"multiprocessors": q(pick(r, smallQuantity...)),
			"copyEngines":     q(pick(r, smallQuantity...)),
			"decoders":        q(pick(r, smallQuantity...)),
		},
	}
	if r.chance(50) {
		mig.Capacity["jpegEngines"] = q(pick(r, smallQuantity...))
		mig.Capacity["ofaEngines"] = q(pick(r, smallQuantity...))
	}
	out = append(out, Device{Driver: nvidiaDomain, Device: mig})

	// A device with list attributes, extreme ints and a foreign capacity.
	lists := resourceapi.Device{
		Name: "gpu-lists",
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"productName":           str(pick(r, products...)),
			"supportedProfiles":     {StringValues: pickSome(r, migProfiles)},
			"nvlinkPeers":           {IntValues: []int64{int64(r.intn(4)), 5, int64(r.intn(9))}},
			"laneStatus":            {BoolValues: []bool{true, r.chance(50)}},
			"compatibleDrivers":     {VersionValues: []string{pick(r, driverVers...), "1.2.3"}},
			"bigInt":                i64(9223372036854775807 - int64(r.intn(3))),
			"negInt":                i64(-9223372036854775807 - 1 + int64(r.intn(2))),
			"nvlink":                boolean(r.chance(50)),
			otherDomain + "/rack":   i64(int64(r.intn(5))),
			k8sDomain + "/pciBusID": str(pick(r, "", "0000:3b:00.0", "ÄÖÜ-ß")),
			"brand":                 str(pick(r, "", "NVIDIA", "  Nvidia  ")),
			"uuid":                  str(pick(r, "GPU-a-b-c", "gpu-UPPER-lower", "x")),
			nvidiaDomain + "/numa":  i64(int64(r.intn(3))),
			"cudaComputeCapability": ver(pick(r, "8.0.0", "9.0.0", "10.0.0-alpha")),
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory":                   q(pick(r, memories...)),
			otherDomain + "/bandwidth": q(pick(r, "100G", "25Gi", "400M", "1")),
		},
	}
	out = append(out, Device{Driver: nvidiaDomain, Device: lists})

	// A sparse device: only a product name, no capacity.
	out = append(out, Device{Driver: nvidiaDomain, Device: resourceapi.Device{
		Name: "sparse",
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"productName": str(pick(r, products...)),
		},
	}})

	// An empty device of another driver.
	out = append(out, Device{Driver: pick(r, "gpu.example.com", "nic.example.com"), Device: resourceapi.Device{Name: "empty"}})

	// A NIC of another driver with NVIDIA-domain attributes by qualified
	// name, and sometimes an unparsable version (the device conversion
	// fails for every expression).
	nic := resourceapi.Device{
		Name: "nic-0",
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"productName":                   str("ConnectX-7"),
			"index":                         i64(int64(r.intn(4))),
			nvidiaDomain + "/productName":   str(pick(r, products...)),
			nvidiaDomain + "/driverVersion": ver(pick(r, driverVers...)),
			k8sDomain + "/pcieRoot":         str(fmt.Sprintf("pci0000:%02x", r.intn(4))),
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"bandwidth":              q(pick(r, "200G", "400G")),
			nvidiaDomain + "/memory": q(pick(r, memories...)),
		},
		AllowMultipleAllocations: ptr.To(r.chance(50)),
	}
	if r.chance(10) {
		nic.Attributes["firmware"] = ver(pick(r, "28.39", "v1.2.3", "1.02.3", "1.2.3-"))
	}
	out = append(out, Device{Driver: "nic.example.com", Device: nic})
	return out
}

// pickSome returns a non-empty subset of xs in order.
func pickSome(r *rng, xs []string) []string {
	var out []string
	for _, x := range xs {
		if r.chance(40) {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		out = append(out, xs[r.intn(len(xs))])
	}
	return out
}
