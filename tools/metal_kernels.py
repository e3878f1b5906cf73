"""The GPU kernels tensorflow-metal registers, read by running its own registration code.

Maintainer tooling (needs the `unicorn` CPU emulator: `pip install "tfdoctor[maintainers]"`).
TensorFlow calls a PluggableDevice's exported `TF_InitKernel` once at load; it registers every
kernel through TensorFlow's C API (tensorflow/c/kernels.h): `TF_NewKernelBuilder(op, device,
...)`, `TF_KernelBuilder_TypeConstraint(builder, attr, dtype, status)`,
`TF_KernelBuilder_HostMemory(builder, arg)` and `TF_RegisterKernelBuilder(name, builder,
status)`. Here `libmetal_plugin.dylib` (arm64) is mapped into an emulated arm64 CPU, its imports
are bound to small Python handlers (those four record the table; libc/libc++ basics are
emulated; anything else returns 0), and TF_InitKernel runs from start to end. Reading strings
out of the binary is not enough: op names of 8 characters or fewer are built from immediates.
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import macho  # noqa: E402

METHOD = (
    "The GPU kernels that libmetal_plugin.dylib registers, found by running its exported "
    "TF_InitKernel on an arm64 CPU emulator (the unicorn package) and recording every call it makes "
    "to TF_NewKernelBuilder (op name, device type), TF_KernelBuilder_TypeConstraint (attribute, "
    "dtype), TF_KernelBuilder_HostMemory and TF_RegisterKernelBuilder (tools/metal_kernels.py). "
    "Reading strings is not enough: op names of 8 characters or fewer (Relu, Add) are built from "
    "immediate constants in the code."
)

TF_DATATYPES = {
    1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8", 7: "string",
    8: "complex64", 9: "int64", 10: "bool", 11: "qint8", 12: "quint8", 13: "qint32",
    14: "bfloat16", 15: "qint16", 16: "quint16", 17: "uint16", 18: "complex128", 19: "float16",
    20: "resource", 21: "variant", 22: "uint32", 23: "uint64", 24: "float8_e5m2",
    25: "float8_e4m3fn", 26: "float8_e4m3fnuz", 27: "float8_e4m3b11fnuz", 28: "float8_e5m2fnuz",
    29: "int4", 30: "uint4",
}
"""TF_DataType values (tensorflow/c/tf_datatype.h) and the names tf.dtypes prints."""

SLIDE = 0x1_0000_0000
STUBS, STUB_SIZE = 0x7_0000_0000, 16
HEAP, HEAP_SIZE = 0x8_0000_0000, 256 << 20
STACK, STACK_SIZE = 0x9_0000_0000, 8 << 20
DATA_CELLS, DATA_CELL = 0xA_0000_0000, 256
RETURN_ADDRESS = 0xB_0000_0000
VIRTUAL = "<virtual function of an imported object>"
PAGE = 0x4000
RET = struct.pack("<I", 0xD65F03C0)


class EmulationError(RuntimeError):
    """TF_InitKernel did not run to its end in the emulator."""


@dataclass
class KernelRecord:
    """One kernel as TF_RegisterKernelBuilder received it."""

    op: str
    device: str
    constraints: dict[str, str] = field(default_factory=dict)
    host_memory: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"op": self.op, "device": self.device, "constraints": dict(self.constraints),
                "host_memory": list(self.host_memory)}


@dataclass
class Emulation:
    """What one run of TF_InitKernel did."""

    kernels: list[KernelRecord]
    instructions_hooked: int
    unhandled_calls: dict[str, int]


def _align(value: int, to: int = PAGE) -> int:
    return (value + to - 1) & ~(to - 1)


class _Machine:
    """The plugin mapped at SLIDE in an arm64 unicorn instance, imports bound to handlers."""

    def __init__(self, image: macho.MachO) -> None:
        try:
            import unicorn
            import unicorn.arm64_const as a64
        except ImportError as exc:  # pragma: no cover - the maintainers' extra is missing
            raise EmulationError("the unicorn package is needed: pip install 'tfdoctor[maintainers]'") from exc
        if image.arch != "arm64":
            raise EmulationError(f"only arm64 images can be emulated, not {image.arch}")
        self.uc_mod, self.a64 = unicorn, a64
        self.uc = unicorn.Uc(unicorn.UC_ARCH_ARM64, unicorn.UC_MODE_ARM)
        self.image = image
        self.heap_top = HEAP
        self.builders: dict[int, KernelRecord] = {}
        self.kernels: list[KernelRecord] = []
        self.unhandled: dict[str, int] = {}
        self.calls = 0
        self._map_image()
        self._bind_imports()
        self.uc.mem_map(HEAP, HEAP_SIZE)
        self.uc.mem_map(STACK, STACK_SIZE)
        self.uc.mem_map(RETURN_ADDRESS, PAGE)
        self.uc.mem_write(RETURN_ADDRESS, RET)

    # -- loading --------------------------------------------------------------------------------

    def _map_image(self) -> None:
        data = self.image.data
        for seg in self.image.segments:
            if not seg.vmsize or seg.name == "__PAGEZERO":
                continue
            start = SLIDE + (seg.vmaddr & ~(PAGE - 1))
            self.uc.mem_map(start, _align(SLIDE + seg.vmaddr + seg.vmsize) - start)
            if seg.filesize:
                self.uc.mem_write(SLIDE + seg.vmaddr, data[seg.fileoff:seg.fileoff + seg.filesize])
        self.rebases, self.binds = self.image.fixups()
        for address, target in self.rebases:
            self.uc.mem_write(SLIDE + address, struct.pack("<Q", target + SLIDE))

    def _bind_imports(self) -> None:
        binds = self.binds
        names = sorted({b.name for b in binds}) + [VIRTUAL]
        self.stub_names = names
        self.uc.mem_map(STUBS, _align(len(names) * STUB_SIZE + 1))
        self.uc.mem_write(STUBS, RET.ljust(STUB_SIZE, b"\0") * len(names))
        self.uc.mem_map(DATA_CELLS, _align(len(names) * DATA_CELL + 1))
        index = {n: i for i, n in enumerate(names)}
        virtual = struct.pack("<Q", STUBS + index[VIRTUAL] * STUB_SIZE)
        for i in range(len(names)):
            # a data import looks like an object: its first word points at a "vtable" whose
            # negative offsets (offset-to-top, virtual base offsets) are 0 and whose slots are
            # all a stub returning 0, so std::cout << "Init Kernel" (metal 0.1) runs through
            cell = DATA_CELLS + i * DATA_CELL
            self.uc.mem_write(cell, struct.pack("<Q", cell + 64) + b"\0" * 56 + virtual * 24)
        self.fake_object = DATA_CELLS + index[VIRTUAL] * DATA_CELL
        for b in binds:
            target = self._import_address(b.name, index[b.name])
            self.uc.mem_write(SLIDE + b.address, struct.pack("<Q", target + b.addend))
        self.uc.hook_add(self.uc_mod.UC_HOOK_CODE, self._on_stub, begin=STUBS,
                         end=STUBS + len(names) * STUB_SIZE)

    def _import_address(self, name: str, index: int) -> int:
        """Code imports land on a stub; data imports (___stack_chk_guard, vtables, class
        objects) on a zeroed cell of their own."""
        if name in HANDLERS or not _looks_like_data(name):
            return STUBS + index * STUB_SIZE
        return DATA_CELLS + index * DATA_CELL

    # -- running --------------------------------------------------------------------------------

    def reg(self, n: int) -> int:
        return self.uc.reg_read(getattr(self.a64, f"UC_ARM64_REG_X{n}"))

    def set_x0(self, value: int) -> None:
        self.uc.reg_write(self.a64.UC_ARM64_REG_X0, value & 0xFFFFFFFFFFFFFFFF)

    def cstr(self, address: int, limit: int = 4096) -> str:
        out = bytearray()
        while len(out) < limit:
            chunk = bytes(self.uc.mem_read(address + len(out), 64))
            stop = chunk.find(b"\0")
            if stop >= 0:
                out += chunk[:stop]
                break
            out += chunk
        return out.decode("utf-8", "replace")

    def alloc(self, size: int) -> int:
        address = self.heap_top
        self.heap_top += _align(max(size, 1), 16)
        if self.heap_top > HEAP + HEAP_SIZE:
            raise EmulationError("emulated heap exhausted")
        return address

    def _on_stub(self, uc: object, address: int, _size: int, _user: object) -> None:
        name = self.stub_names[(address - STUBS) // STUB_SIZE]
        self.calls += 1
        handler = HANDLERS.get(name)
        if handler is None:
            self.unhandled[name] = self.unhandled.get(name, 0) + 1
            self.set_x0(0)
            return
        result = handler(self)
        if result is not None:
            self.set_x0(result)

    def call(self, address: int, *args: int, budget: int = 200_000_000) -> None:
        a64 = self.a64
        self.uc.reg_write(a64.UC_ARM64_REG_SP, STACK + STACK_SIZE - 0x100)
        self.uc.reg_write(a64.UC_ARM64_REG_LR, RETURN_ADDRESS)
        for i, value in enumerate(args):
            self.uc.reg_write(getattr(a64, f"UC_ARM64_REG_X{i}"), value)
        try:
            self.uc.emu_start(address, RETURN_ADDRESS, count=budget)
        except self.uc_mod.UcError as exc:
            pc = self.uc.reg_read(a64.UC_ARM64_REG_PC)
            raise EmulationError(f"emulation stopped at 0x{pc - SLIDE:x} (image offset): {exc}") from exc
        pc = self.uc.reg_read(a64.UC_ARM64_REG_PC)
        if pc != RETURN_ADDRESS:
            raise EmulationError(f"TF_InitKernel did not return within {budget} instructions")


def _looks_like_data(name: str) -> bool:
    return (name in {"___stack_chk_guard", "__NSConcreteGlobalBlock", "__NSConcreteStackBlock",
                     "___CFConstantStringClassReference", "_objc_empty_cache"}
            or name.startswith(("__ZTV", "__ZTI", "__ZTS", "_OBJC_CLASS_$_", "_OBJC_METACLASS_$_",
                                "_kCF", "_MTL", "_MPS", "__ZNSt3__14cout", "__ZNSt3__14cerr"))
            or name.endswith(("_default_instance_E", "_instance_")))


# -- handlers: the four kernel-builder calls, the status calls, and libc/libc++ basics ----------


def _new_builder(m: _Machine) -> int:
    handle = m.alloc(16)
    m.builders[handle] = KernelRecord(m.cstr(m.reg(0)), m.cstr(m.reg(1)))
    return handle


def _type_constraint(m: _Machine) -> None:
    record = m.builders[m.reg(0)]
    dtype = m.reg(2) & 0xFFFFFFFF
    record.constraints[m.cstr(m.reg(1))] = TF_DATATYPES.get(dtype, f"dtype{dtype}")


def _host_memory(m: _Machine) -> None:
    m.builders[m.reg(0)].host_memory.append(m.cstr(m.reg(1)))


def _register(m: _Machine) -> None:
    record = m.builders.get(m.reg(1))
    if record is None:
        raise EmulationError("TF_RegisterKernelBuilder got a builder TF_NewKernelBuilder never made")
    m.kernels.append(record)


def _memcpy(m: _Machine) -> int:
    dst, src, n = m.reg(0), m.reg(1), m.reg(2)
    if n:
        m.uc.mem_write(dst, bytes(m.uc.mem_read(src, n)))
    return dst


def _memset(m: _Machine) -> int:
    dst, value, n = m.reg(0), m.reg(1) & 0xFF, m.reg(2)
    if n:
        m.uc.mem_write(dst, bytes([value]) * n)
    return dst


def _bzero(m: _Machine) -> None:
    if m.reg(1):
        m.uc.mem_write(m.reg(0), b"\0" * m.reg(1))


def _strlen(m: _Machine) -> int:
    return len(m.cstr(m.reg(0), 1 << 20).encode("utf-8"))


def _strcmp(m: _Machine) -> int:
    a, b = m.cstr(m.reg(0)).encode(), m.cstr(m.reg(1)).encode()
    return (a > b) - (a < b)


def _calloc(m: _Machine) -> int:
    size = m.reg(0) * m.reg(1)
    address = m.alloc(size)
    m.uc.mem_write(address, b"\0" * size)
    return address


def _guard_acquire(m: _Machine) -> int:
    return 0 if m.uc.mem_read(m.reg(0), 1)[0] else 1


def _guard_release(m: _Machine) -> None:
    m.uc.mem_write(m.reg(0), b"\1")


def _dispatch_once_f(m: _Machine) -> None:
    """dispatch_once_f(predicate, context, function): run `function(context)` the first time,
    by jumping to it with the caller's return address still in LR."""
    predicate, context, function = m.reg(0), m.reg(1), m.reg(2)
    if struct.unpack("<q", m.uc.mem_read(predicate, 8))[0] == -1:
        return
    m.uc.mem_write(predicate, struct.pack("<q", -1))
    m.uc.reg_write(m.a64.UC_ARM64_REG_X0, context)
    m.uc.reg_write(m.a64.UC_ARM64_REG_PC, function)


def _stack_chk_fail(m: _Machine) -> None:
    raise EmulationError("___stack_chk_fail called")


HANDLERS: dict[str, Callable[[_Machine], int | None]] = {
    "_TF_NewKernelBuilder": _new_builder,
    "_TF_KernelBuilder_TypeConstraint": _type_constraint,
    "_TF_KernelBuilder_HostMemory": _host_memory,
    "_TF_RegisterKernelBuilder": _register,
    "_TF_NewStatus": lambda m: m.alloc(64),
    "_TF_GetCode": lambda m: 0,
    "_TF_DeleteStatus": lambda m: None,
    "_malloc": lambda m: m.alloc(m.reg(0)),
    "__Znwm": lambda m: m.alloc(m.reg(0)),
    "__Znam": lambda m: m.alloc(m.reg(0)),
    "_calloc": _calloc,
    "_free": lambda m: None,
    "__ZdlPv": lambda m: None,
    "__ZdaPv": lambda m: None,
    "_memcpy": _memcpy,
    "_memmove": _memcpy,
    "_memset": _memset,
    "_bzero": _bzero,
    "_strlen": _strlen,
    "_strcmp": _strcmp,
    "___cxa_atexit": lambda m: 0,
    "___cxa_guard_acquire": _guard_acquire,
    "___cxa_guard_release": _guard_release,
    "___stack_chk_fail": _stack_chk_fail,
    "_dispatch_once_f": _dispatch_once_f,
    # std::locale::use_facet (std::cout << ... in metal 0.1): an object whose methods return 0
    "__ZNKSt3__16locale9use_facetERNS0_2idE": lambda m: m.fake_object,
    # std::string::append(const char*, size_t) builds kernel names nobody records: return *this
    "__ZNSt3__112basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEE6appendEPKcm": lambda m: None,
}


def emulate_init_kernel(dylib: bytes) -> Emulation:
    """Run the plugin's TF_InitKernel and return the kernels it registered, in order."""
    image = macho.parse(dylib, "arm64")
    entry = image.address_of("_TF_InitKernel")
    if entry is None:
        raise EmulationError("the image exports no TF_InitKernel")
    machine = _Machine(image)
    machine.call(SLIDE + image.base_address() + entry)
    return Emulation(machine.kernels, machine.calls, dict(machine.unhandled))


def main(argv: list[str] | None = None) -> int:
    """`python tools/metal_kernels.py libmetal_plugin.dylib`: print the table as JSON lines."""
    import json

    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 1:
        print("usage: metal_kernels.py PATH/TO/libmetal_plugin.dylib", file=sys.stderr)
        return 2
    result = emulate_init_kernel(Path(args[0]).read_bytes())
    for k in result.kernels:
        print(json.dumps(k.as_dict()))
    print(f"{len(result.kernels)} kernels over {len({k.op for k in result.kernels})} ops; "
          f"{result.instructions_hooked} imported calls; unhandled: {result.unhandled_calls}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
