package gen

// Selector menus. Every expression compiles in the DRA CEL environment
// (TestSelectorMenusCompile); the *Error menus fail at runtime on devices
// that lack an attribute or capacity.

var gpuSelectors = []string{
	`device.attributes["gpu.example.com"].model == "a100"`,
	`device.attributes["gpu.example.com"].model == "h100"`,
	`device.attributes["gpu.example.com"].model in ["h100", "l4"]`,
	`device.attributes["gpu.example.com"].model.startsWith("a")`,
	`device.attributes["gpu.example.com"].model.upperAscii() == "H100"`,
	`device.attributes["gpu.example.com"].numa == 1`,
	`device.attributes["gpu.example.com"].numa < 1`,
	`device.attributes["gpu.example.com"].ecc`,
	`!device.attributes["gpu.example.com"].ecc`,
	`device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("540.0.0"))`,
	`device.attributes["gpu.example.com"].driverVersion.compareTo(semver("550.54.15")) >= 0`,
	`device.attributes["gpu.example.com"].driverVersion.major() < 550`,
	`device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("580.95.5"))`,
	`device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`,
	`device.capacity["gpu.example.com"].memory.isLessThan(quantity("64Gi"))`,
	`device.capacity["gpu.example.com"].memory.asApproximateFloat() > 50000000000.0`,
	`quantity("16Gi").add(quantity("16Gi")).isLessThan(device.capacity["gpu.example.com"].memory)`,
	`device.capacity["gpu.example.com"].cores.asInteger() >= 100`,
	`device.capacity["gpu.example.com"].cores.isGreaterThan(quantity("100"))`,
	`device.attributes["resource.kubernetes.io"].pcieRoot.matches("^pci0000:0[0-1]$")`,
	`device.attributes["gpu.example.com"].uuid.endsWith("1")`,
	`device.attributes["gpu.example.com"].uuid.split("-").size() == 3`,
	`device.attributes["gpu.example.com"].uuid.indexOf("-") == 3`,
	`has(device.attributes["gpu.example.com"].optional)`,
	`device.attributes["gpu.example.com"].?optional.orValue("none") == "none"`,
	`"optional" in device.attributes["gpu.example.com"]`,
	`device.attributes["nic.example.com"].size() == 0`,
	`cel.bind(m, device.attributes["gpu.example.com"], m.model == "a100" && m.numa == 0)`,
	`device.driver.endsWith(".example.com")`,
}

// gpuErrorSelectors raise "no such key" on devices without the attribute
// or capacity.
var gpuErrorSelectors = []string{
	`device.attributes["gpu.example.com"].optional == "yes"`,
	`device.capacity["gpu.example.com"].bandwidth.isGreaterThan(quantity("1G"))`,
	`device.attributes["gpu.example.com"].model == "a100" || device.attributes["gpu.example.com"].optional == "no"`,
}

var nicSelectors = []string{
	`device.attributes["nic.example.com"].speed >= 200`,
	`device.attributes["nic.example.com"].rdma`,
	`device.attributes["nic.example.com"].firmware.isLessThan(semver("2.0.0"))`,
	`device.capacity["nic.example.com"].bandwidth.compareTo(quantity("100G")) > 0`,
	`device.attributes["resource.kubernetes.io"].pcieRoot.startsWith("pci0000:0")`,
}

var nicErrorSelectors = []string{
	`device.attributes["nic.example.com"].vlan == 10`,
}

var sharedSelectors = []string{
	`device.allowMultipleAllocations`,
	`device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`,
	`device.attributes["gpu.example.com"].model == "h100"`,
	`device.attributes["gpu.example.com"].numa == 0`,
}

var migSelectorsByCapacity = []string{
	`device.capacity["gpu.nvidia.com"].multiprocessors.isGreaterThan(quantity("30"))`,
	`device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) >= 0`,
	`device.capacity["gpu.nvidia.com"].memory.isLessThan(quantity("12Gi"))`,
	`device.attributes["gpu.nvidia.com"].profile.startsWith("1g")`,
	`device.attributes["gpu.nvidia.com"].profile.endsWith("+me")`,
	`device.attributes["gpu.nvidia.com"].cudaComputeCapability.isGreaterThan(semver("8.5.0"))`,
	`device.attributes["gpu.nvidia.com"].productName.contains("H100")`,
	`device.capacity["gpu.nvidia.com"].decoders.isGreaterThan(quantity("1"))`,
}

var migErrorSelectors = []string{
	// Full GPUs have no "profile" attribute.
	`device.attributes["gpu.nvidia.com"].profile != "7g.80gb"`,
}
