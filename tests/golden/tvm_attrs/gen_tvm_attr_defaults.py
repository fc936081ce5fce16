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
            members = {}
            for line in statements(src[m.end():decl]):
                mm = re.fullmatch(r"\s*([\w:<>, ]+?)\s+(\w+)(?:\s*=\s*(.+))?\s*", line)
                if mm:
                    members[mm.group(2)] = (mm.group(1), mm.group(3))
            block = balanced(src, src.index("{", decl) + 1, "{", "}")
            fields = {}
            for stmt in statements(block):
                f = re.search(r"TVM_ATTR_FIELD\((\w+)\)", stmt)
                if not f:
                    continue
                k = stmt.find(".set_default(")
                entry = {"required": True} if k < 0 else value_entry("default", balanced(stmt, k + len(".set_default(")))
                member_type, initializer = members.get(f.group(1), ("", None))
                if member_type == "bool" and entry.get("default") in (0, 1):
                    entry["default"] = bool(entry["default"])  # `bool allowzero` with set_default(0)
                unset = value_entry("unset", initializer) if initializer else {"unset": default_constructed(member_type)}
                fields[f.group(1)] = {**entry, **unset}
            structs[m.group(1)] = {"header": header, "fields": fields}
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


def main():
    repo = sys.argv[1]
    structs = read_structs(repo)
    types, made_type, made = read_ops(repo)
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
