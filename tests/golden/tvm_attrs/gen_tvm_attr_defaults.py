#!/usr/bin/env python3
"""Writes tvm_attr_defaults.json: for every Relay op of the reference (Apache
TVM v0.19) with an attrs struct, each field's default as TVM's text parser
fills it in, and the fields the op's Make function leaves unset (TVM prints
those with their default-constructed value, e.g. `dilation=[]`).

Sources, read from a clone of apache/tvm at tag v0.19.0:
  include/tvm/relay/attrs/*.h   TVM_ATTR_FIELD(name).set_default(value), member types
  src/relay/op/**/*.cc          RELAY_REGISTER_OP(name)...set_attrs_type<Attrs>(),
                                and the Make functions (make_object<Attrs>, attrs->field = ...)

Usage: gen_tvm_attr_defaults.py /path/to/tvm-clone [> tvm_attr_defaults.json]
       gen_tvm_attr_defaults.py --cpp-table /path/to/tvm-clone [> core/src/text/tvm_attrs_types.cpp]
The second form writes the table the text parser reads `meta[relay.attrs.X][N]`
call attributes with: each attrs struct's type key and its fields' member
types, and the attrs type keys a call to each op may hold.
"""
import json
import re
import subprocess
import sys

TAG = "refs/tags/v0.19.0"


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def balanced(text, start, open_ch="(", close_ch=")"):
    """The text from `start` (just after an opening bracket) to its match."""
    depth, i = 1, start
    while depth:
        depth += {open_ch: 1, close_ch: -1}.get(text[i], 0)
        i += 1
    return text[start:i - 1]


STRING_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)


def strip_comments(src):
    return STRING_OR_COMMENT.sub(lambda m: "" if m.group(0).startswith("/") else m.group(0), src)


def statements(block):
    """`block` split at the semicolons outside string literals."""
    out, start = [], 0
    for m in re.finditer(r'"(?:\\.|[^"\\])*"|;', block):
        if m.group(0) == ";":
            out.append(block[start:m.start()])
            start = m.end()
    return out + [block[start:]]


def number(text):
    text = text.strip()
    m = re.fullmatch(r"static_cast<\w+>\((.*)\)", text)
    if m:
        return float(m.group(1))
    text = text.rstrip("f") if re.fullmatch(r"[-0-9.e]+f", text) else text
    return int(text) if re.fullmatch(r"-?\d+", text) else float(text)


def json_default(cpp):
    """A C++ default expression as the JSON of the Relay attr value it means."""
    cpp = " ".join(cpp.split())
    if cpp.startswith("NullValue<"):
        return None
    m = re.fullmatch(r"Array<\w+>\s*\(?\{(.*)\}\)?", cpp)
    if m:
        return [number(x) for x in m.group(1).split(",") if x.strip()]
    if re.fullmatch(r'"[^"]*"', cpp):
        return cpp[1:-1]
    if cpp in ("true", "false"):
        return cpp == "true"
    m = re.fullmatch(r"DataType::(Int|UInt|Float)\((\d+)\)", cpp)
    if m:
        return {"Int": "int", "UInt": "uint", "Float": "float"}[m.group(1)] + m.group(2)
    m = re.fullmatch(r"Integer\((.*)\)", cpp)
    if m:
        return number(m.group(1))
    return number(cpp)


def value_entry(key, cpp):
    """{key: value}, or {key + "_cpp": the C++ text} where it has no attr value form (a Map)."""
    try:
        return {key: json_default(cpp)}
    except ValueError:
        return {key + "_cpp": " ".join(cpp.split())}


def default_constructed(member_type):
    """What make_object<Attrs>() leaves in a member nobody sets, as TVM prints it."""
    if member_type.startswith("Array<"):
        return []
    if member_type in ("std::string", "String", "tvm::String"):
        return ""
    if member_type == "bool":
        return False
    if member_type in ("int", "int32_t", "int64_t", "size_t", "double", "float"):
        return 0
    return None  # ObjectRefs (IndexExpr, Optional, DataType's void) print as None or are skipped


def read_structs(repo):
    structs = {}
    for header in git(repo, "ls-tree", "-r", "--name-only", TAG, "include/tvm/relay/attrs").split():
        src = strip_comments(git(repo, "show", f"{TAG}:{header}"))
        for m in re.finditer(r"struct (\w+)\s*:\s*public tvm::AttrsNode<\1>\s*\{", src):
            decl = src.index("TVM_DECLARE_ATTRS", m.end())
            type_key = re.match(r'TVM_DECLARE_ATTRS\(\w+,\s*"([^"]+)"\)', src[decl:]).group(1)
            members = {}
            for line in statements(src[m.end():decl]):
                mm = re.fullmatch(r"\s*([\w:<>, ]+?)\s+(\w+)(?:\s*=\s*(.+))?\s*", line)
                if mm:
                    members[mm.group(2)] = (mm.group(1), mm.group(3))
            block = balanced(src, src.index("{", decl) + 1, "{", "}")
            fields, member_types = {}, {}
            for stmt in statements(block):
                f = re.search(r"TVM_ATTR_FIELD\((\w+)\)", stmt)
                if not f:
                    continue
                k = stmt.find(".set_default(")
                entry = {"required": True} if k < 0 else value_entry("default", balanced(stmt, k + len(".set_default(")))
                member_type, initializer = members.get(f.group(1), ("", None))
                member_types[f.group(1)] = member_type
                if member_type == "bool" and entry.get("default") in (0, 1):
                    entry["default"] = bool(entry["default"])  # `bool allowzero` with set_default(0)
                unset = value_entry("unset", initializer) if initializer else {"unset": default_constructed(member_type)}
                fields[f.group(1)] = {**entry, **unset}
            structs[m.group(1)] = {"header": header, "fields": fields, "type_key": type_key,
                                   "member_types": member_types}
    return structs


def read_ops(repo):
    """op -> registered attrs type, op -> attrs type its Make function builds,
    op -> fields its Make functions set."""
    types, made_type, made = {}, {}, {}
    for cc in git(repo, "ls-tree", "-r", "--name-only", TAG, "src/relay/op").split():
        if not cc.endswith(".cc"):
            continue
        src = git(repo, "show", f"{TAG}:{cc}")
        lines = src.split("\n")
        for n, line in enumerate(lines):
            m = re.search(r"set_attrs_type<(\w+)>", line)
            if not m:
                continue
            for back in range(n, max(n - 80, -1), -1):
                r = re.search(r'RELAY_REGISTER_\w*OP\("([^"]+)"\)', lines[back])
                if r:
                    types[r.group(1)] = m.group(1)
                    break
        # A Make function: `make_object<X>()`, `attrs->f = ...`, `Op::Get("name")` in one body.
        for fn in re.finditer(r"\n(?:Expr|Call) (\w+)\([^)]*\)\s*\{", src):
            body = balanced(src, fn.end(), "{", "}")
            attrs = re.search(r"make_object<(\w+)>\(\)", body)
            op = re.search(r'Op::Get\("([^"]+)"\)', body)
            if attrs and op:
                made_type[op.group(1)] = attrs.group(1)
                made.setdefault(op.group(1), set()).update(re.findall(r"attrs->(\w+)\s*=", body))
    return types, made_type, made


# How SaveJSON writes a member (node/serialization.cc's JSONAttrGetter): the
# scalars as strings in the node's "attrs", every ObjectRef as the index of its
# node. Object members are told apart by the node they must refer to.
FIELD_KINDS = [
    ("kInt", r"int|int32_t|int64_t"),
    ("kFloat", r"double"),
    ("kBool", r"bool"),
    ("kString", r"std::string"),
    ("kDType", r"DataType"),
    ("kIntImm", r"Integer|IndexExpr|PrimExpr|Bool|Optional<Integer>"),
    ("kFloatImm", r"FloatImm|Optional<FloatImm>"),
    ("kStringObj", r"String|tvm::String"),
    ("kArray", r"(Optional<)?Array<.*>>?"),
    ("kBoxedIntOrArray", r"Variant<runtime::Int, Array<runtime::Int>>"),
]


def field_kind(member_type):
    for kind, pattern in FIELD_KINDS:
        if re.fullmatch(pattern, member_type):
            return kind
    return "kUnsupported"  # Expr, VirtualDevice, Map, ...: weft has no attr value for them


def cpp_table(structs, types, made_type):
    out = ["// Generated by tests/golden/tvm_attrs/gen_tvm_attr_defaults.py --cpp-table from apache/tvm",
           "// v0.19.0 (include/tvm/relay/attrs/*.h, src/relay/op); do not edit.",
           '#include "tvm_attrs_types.h"', "", "#include <algorithm>", "#include <iterator>", "",
           "namespace weft::text {", "", "namespace {", ""]
    names = sorted(structs, key=lambda n: structs[n]["type_key"])
    for name in names:
        if not structs[name]["member_types"]:
            continue
        out.append(f"constexpr TvmAttrsField k{name}[] = {{")
        for field, member_type in structs[name]["member_types"].items():
            out.append(f'    {{"{field}", TvmFieldKind::{field_kind(member_type)}, "{member_type}"}},')
        out.append("};")
    out += ["", "// Sorted by type key.", "constexpr TvmAttrsType kTypes[] = {"]
    for name in names:
        fields = f"k{name}" if structs[name]["member_types"] else ""
        out.append(f'    {{"{structs[name]["type_key"]}", {{{fields}}}}},')
    out += ["};", "", "// Sorted by op; the registered type key, and the one its Make function builds", "// where it differs.",
            "constexpr TvmOpAttrsTypes kOps[] = {"]
    for op in sorted(set(types) | set(made_type)):
        keys = []
        for t in (types.get(op), made_type.get(op)):
            if t in structs and structs[t]["type_key"] not in keys:
                keys.append(structs[t]["type_key"])
        if keys:
            out.append(f'    {{"{op}", {{' + ", ".join(f'"{k}"' for k in keys) + "}},")
    out += ["};", "", "}  // namespace", "",
            "const TvmAttrsType* find_tvm_attrs_type(std::string_view type_key) {",
            "  auto it = std::lower_bound(std::begin(kTypes), std::end(kTypes), type_key,",
            "                             [](const TvmAttrsType& t, std::string_view key) { return t.type_key < key; });",
            "  return it != std::end(kTypes) && it->type_key == type_key ? &*it : nullptr;",
            "}", "",
            "const TvmOpAttrsTypes* find_tvm_op_attrs_types(std::string_view op) {",
            "  auto it = std::lower_bound(std::begin(kOps), std::end(kOps), op,",
            "                             [](const TvmOpAttrsTypes& o, std::string_view name) { return o.op < name; });",
            "  return it != std::end(kOps) && it->op == op ? &*it : nullptr;",
            "}", "", "}  // namespace weft::text"]
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    repo = args[-1]
    structs = read_structs(repo)
    types, made_type, made = read_ops(repo)
    if args[0] == "--cpp-table":
        sys.stdout.write(cpp_table(structs, types, made_type))
        return
    ops = {}
    # An op that registers no attrs type (nn.dilate) still prints the attrs its Make builds.
    for op in sorted(set(types) | set(made_type)):
        attrs_type = types.get(op, made_type.get(op))
        if attrs_type not in structs:
            continue
        # TVM prints the attrs its Make function built (nn.avg_pool2d_grad registers
        # MaxPool2DAttrs but builds AvgPool2DAttrs); defaults of the fields both share agree.
        printed_type = made_type.get(op, attrs_type)
        fields = {}
        for name, f in structs[printed_type]["fields"].items():
            entry = {k: v for k, v in f.items() if not k.startswith("unset")}
            # Printed only where it differs from the default (VisitNonDefaultAttrs).
            if op in made and name not in made[op] and "unset" in f and f["unset"] != f.get("default"):
                entry["unset_by_make"] = f["unset"]
            fields[name] = entry
        ops[op] = {"attrs_type": attrs_type, "header": structs[attrs_type]["header"], "fields": fields}
        if printed_type != attrs_type:
            ops[op]["made_attrs_type"] = printed_type
    json.dump({"source": "apache/tvm v0.19.0: include/tvm/relay/attrs/*.h and src/relay/op (" + __file__.split("/")[-1] + ")",
               "ops": ops}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
