#include "glsl_codegen.h"

#include "glsl_math.h"

#include <weft/plugin.hpp>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace sdk = weft::sdk;

namespace vulkan_target {
namespace {

/// Elements an invocation's own scratch array may hold: beyond this, a
/// stage's private storage would not fit a GPU's registers and local memory.
constexpr int64_t kMaxLocalScratch = 16384;

/// Workgroups a dispatch of `invocations` launches (its shader strides over the rest).
int64_t workgroups_for(int64_t invocations, int64_t max_workgroups) {
  return std::clamp<int64_t>((invocations + kWorkgroupSize - 1) / kWorkgroupSize, 1, std::max<int64_t>(max_workgroups, 1));
}

bool is_bool(DLDataType t) { return t.code == kDLUInt && t.bits == 1; }
bool is_float(DLDataType t) { return t.code == kDLFloat || t.code == kDLBfloat; }
bool is_signed(DLDataType t) { return t.code == kDLInt; }
bool is_small_int(DLDataType t) { return (t.code == kDLInt || t.code == kDLUInt) && (t.bits == 8 || t.bits == 16); }

std::string dtype_text(DLDataType t) {
  if (is_bool(t)) return "bool";
  const char* code = t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint" : t.code == kDLFloat ? "float" : "bfloat";
  return code + std::to_string(t.bits) + (t.lanes != 1 ? "x" + std::to_string(t.lanes) : "");
}

/// The GLSL type a value of `t` computes in.
std::string value_type(DLDataType t) {
  if (is_bool(t)) return "bool";
  if (t.code == kDLFloat || t.code == kDLBfloat) return t.bits == 64 ? "double" : "float";
  if (t.bits == 64) return t.code == kDLInt ? "int64_t" : "uint64_t";
  return t.code == kDLInt ? "int" : "uint";
}

/// The GLSL type a value of `t` is stored as (a bool is a byte).
std::string storage_type(DLDataType t) {
  if (is_bool(t)) return "uint8_t";
  if (t.code == kDLBfloat) return "uint16_t";
  if (t.code == kDLFloat) return t.bits == 16 ? "float16_t" : t.bits == 32 ? "float" : "double";
  const std::string base = t.code == kDLInt ? "int" : "uint";
  if (t.bits == 32) return base;
  return base + std::to_string(t.bits) + "_t";
}

/// A short name of a value type, for helpers' names.
std::string suffix(const std::string& type) {
  static const std::map<std::string, std::string> names = {{"bool", "b"},    {"int", "i"},     {"uint", "u"},
                                                           {"int64_t", "l"}, {"uint64_t", "ul"}, {"float", "f"},
                                                           {"double", "d"}};
  return names.at(type);
}

std::string int_literal(int64_t v, const std::string& type) {
  if (type == "bool") return v ? "true" : "false";
  if (type == "int") {
    if (v == INT32_MIN) return "(-2147483647 - 1)";
    return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
  }
  if (type == "uint") return std::to_string(static_cast<uint32_t>(v)) + "u";
  if (type == "int64_t") {
    if (v == INT64_MIN) return "(-9223372036854775807l - 1l)";
    return v < 0 ? "(" + std::to_string(v) + "l)" : std::to_string(v) + "l";
  }
  if (type == "uint64_t") return std::to_string(static_cast<uint64_t>(v)) + "ul";
  // A float of an integral value.
  return type == "double" ? std::to_string(v) + ".0lf" : std::to_string(v) + ".0";
}

/// `v` exactly, as a float or double expression.
std::string float_literal(double v, const std::string& type) {
  char text[64];
  if (type == "double") {
    if (!std::isfinite(v)) {
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      std::snprintf(text, sizeof text, "packDouble2x32(uvec2(0x%08" PRIx32 "u, 0x%08" PRIx32 "u))",
                    static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32));
      return text;
    }
    std::snprintf(text, sizeof text, "%.17elf", v);  // 17 digits round-trip a double
    return text;
  }
  const float f = static_cast<float>(v);
  if (!std::isfinite(f)) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    std::snprintf(text, sizeof text, "uintBitsToFloat(0x%08" PRIx32 "u)", bits);
    return text;
  }
  std::snprintf(text, sizeof text, "%.9e", static_cast<double>(f));  // 9 digits round-trip a float
  return text;
}

class ShaderEmitter {
 public:
  ShaderEmitter(const sdk::LoopProgram& p, const ShaderFeatures& features, int64_t max_workgroups)
      : p_(p), features_(features), max_workgroups_(max_workgroups) {}

  ShaderPlan emit() {
    check_dtypes();
    for (size_t i = 0; i < p_.num_buffers(); ++i) {
      const weft_loop_buffer_t& b = p_.buffer(static_cast<int32_t>(i));
      if (b.role == WEFT_LOOP_BUFFER_ARG) {
        if (b.arg < 0 || static_cast<size_t>(b.arg) >= p_.num_args())
          throw sdk::Error("buffer " + std::string(b.name) + " is launch argument " + std::to_string(b.arg) + " of " +
                               std::to_string(p_.num_args()),
                           WEFT_STATUS_INTERNAL);
        bind(static_cast<int32_t>(i), ShaderBinding::Kind::kArg);
      } else if (b.role == WEFT_LOOP_BUFFER_CONSTANT) {
        bind(static_cast<int32_t>(i), ShaderBinding::Kind::kConstant);
      }
    }
    split(p_.body());
    return std::move(plan_);
  }

 private:
  // ---- Types ------------------------------------------------------------------------------

  void check_dtypes() const {
    auto check = [&](DLDataType t, const std::string& what) {
      if (!holds_dtype(features_, t))
        throw sdk::Error(what + " is " + dtype_text(t) + ", which this device's shaders cannot hold",
                         WEFT_STATUS_UNSUPPORTED);
    };
    for (size_t i = 0; i < p_.num_buffers(); ++i) {
      const weft_loop_buffer_t& b = p_.buffer(static_cast<int32_t>(i));
      check(b.dtype, "buffer " + std::string(b.name));
    }
    for (size_t i = 0; i < p_.num_nodes(); ++i) {
      const weft_loop_node_t& n = p_.node(static_cast<int32_t>(i));
      if (n.kind <= WEFT_LOOP_LOAD) check(n.dtype, "a value");
    }
  }

  /// `text`, a value of `t` computed in float or int, brought back to `t`:
  /// 16-bit floats rounded, 8- and 16-bit integers wrapped.
  std::string narrow(DLDataType t, const std::string& text) {
    if (t.code == kDLFloat && t.bits == 16) return "float(float16_t(" + text + "))";
    if (t.code == kDLBfloat) return helpers_.need("weft_round_bf16", kRoundBfloat16) + "(" + text + ")";
    if (!is_small_int(t)) return text;
    if (t.code == kDLInt) return "bitfieldExtract(" + text + ", 0, " + std::to_string(t.bits) + ")";
    return "(" + text + (t.bits == 8 ? " & 0xffu)" : " & 0xffffu)");
  }

  static constexpr const char* kRoundBfloat16 =
      "float weft_round_bf16(float x) {  // to nearest even on the top 16 bits; a NaN stays a quiet NaN\n"
      "  uint bits = floatBitsToUint(x);\n"
      "  if (isnan(x)) return uintBitsToFloat((bits & 0xffff0000u) | 0x00400000u);\n"
      "  return uintBitsToFloat((bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u);\n"
      "}\n";

  // ---- Buffers ----------------------------------------------------------------------------

  void bind(int32_t buffer, ShaderBinding::Kind kind) {
    const weft_loop_buffer_t& b = p_.buffer(buffer);
    ShaderBinding binding{kind, buffer, b.arg, -1, b.num_elements * std::max<int64_t>(b.dtype.bits / 8, 1), 0};
    if (kind == ShaderBinding::Kind::kArg) binding.arg_slot = plan_.arg_slots++;
    if (kind == ShaderBinding::Kind::kScratch) {
      binding.scratch_offset = plan_.scratch_bytes;
      plan_.scratch_bytes += (binding.bytes + kScratchAlignment - 1) / kScratchAlignment * kScratchAlignment;
    }
    binding_of_[buffer] = plan_.bindings.size();
    plan_.bindings.push_back(binding);
  }

  /// buffer[indices] as an lvalue: a binding's element, or an invocation's own array's.
  std::string element(const weft_loop_node_t& n, size_t first_index) {
    const weft_loop_buffer_t& b = p_.buffer(n.buffer);
    if (n.num_operands - first_index != b.ndim)
      throw sdk::Error("an access to " + std::string(b.name) + " has the wrong number of indices", WEFT_STATUS_INTERNAL);
    std::string index;
    for (size_t d = 0; d < b.ndim; ++d) {
      if (b.strides[d] == 0) continue;
      const weft_loop_node_t& i = p_.node(n.operands[first_index + d]);
      std::string term = expr(n.operands[first_index + d]);
      if (value_type(i.dtype) != "int") term = "int(" + term + ")";
      if (b.strides[d] != 1) term = "(" + term + ") * " + std::to_string(b.strides[d]);
      index += (index.empty() ? "" : " + ") + term;
    }
    if (index.empty()) index = "0";
    auto binding = binding_of_.find(n.buffer);
    if (binding == binding_of_.end()) return "l" + std::to_string(n.buffer) + "[" + index + "]";
    const ShaderBinding& s = plan_.bindings[binding->second];
    used_bindings_.insert(binding->second);
    const std::string base = "b" + std::to_string(binding->second) + ".v[";
    if (s.kind == ShaderBinding::Kind::kArg) return base + "weft.offsets[" + std::to_string(s.arg_slot) + "] + " + index + "]";
    return base + index + "]";
  }

  bool is_local(int32_t buffer) const { return !binding_of_.count(buffer); }

  std::string load(const weft_loop_node_t& n) {
    const DLDataType t = p_.buffer(n.buffer).dtype;
    const std::string e = element(n, 0);
    if (is_local(n.buffer)) return e;
    if (is_bool(t)) return "(uint(" + e + ") != 0u)";
    if (t.code == kDLBfloat) return "uintBitsToFloat(uint(" + e + ") << 16)";
    if (t.code == kDLFloat && t.bits == 16) return "float(" + e + ")";
    if (is_small_int(t)) return value_type(t) + "(" + e + ")";
    return e;
  }

  void store(const weft_loop_node_t& n, std::string& out, int depth) {
    const DLDataType t = p_.buffer(n.buffer).dtype;
    std::string value = expr(n.operands[0]);
    if (!is_local(n.buffer)) {
      if (is_bool(t)) value = "uint8_t((" + value + ") ? 1u : 0u)";
      else if (t.code == kDLBfloat) value = "uint16_t(floatBitsToUint(" + value + ") >> 16)";
      else if ((t.code == kDLFloat && t.bits == 16) || is_small_int(t)) value = storage_type(t) + "(" + value + ")";
    }
    line(out, depth, element(n, 1) + " = " + value + ";");
  }

  // ---- Expressions ------------------------------------------------------------------------

  std::string expr(int32_t i) {
    const weft_loop_node_t& n = p_.node(i);
    const std::string type = value_type(n.dtype);
    switch (n.kind) {
      case WEFT_LOOP_INT: return int_literal(n.int_value, type);
      case WEFT_LOOP_FLOAT: return float_literal(n.float_value, type);
      case WEFT_LOOP_VAR: return var_name(n.var);
      case WEFT_LOOP_BINARY: return binary(n);
      case WEFT_LOOP_SELECT:  // GLSL's ?: evaluates only the operand it picks
        return "(" + expr(n.operands[0]) + " ? " + expr(n.operands[1]) + " : " + expr(n.operands[2]) + ")";
      case WEFT_LOOP_CAST: return cast(n);
      case WEFT_LOOP_CALL: return call(n);
      case WEFT_LOOP_LOAD: return load(n);
      default: break;
    }
    throw sdk::Error("loop-program node " + std::to_string(i) + " of kind " + std::to_string(n.kind) +
                         " is not an expression",
                     WEFT_STATUS_INTERNAL);
  }

  std::string var_name(int32_t var) const { return "v" + std::to_string(var); }

  std::string binary(const weft_loop_node_t& n) {
    const DLDataType t = p_.operand(n, 0).dtype;  // the operands' (n's own is bool for a comparison)
    const std::string type = value_type(t);
    const std::string a = expr(n.operands[0]), b = expr(n.operands[1]);
    const std::string args = "(" + a + ", " + b + ")";
    switch (n.op) {
      case WEFT_TE_ADD: return narrow(t, "(" + a + " + " + b + ")");
      case WEFT_TE_SUB: return narrow(t, "(" + a + " - " + b + ")");
      case WEFT_TE_MUL: return narrow(t, "(" + a + " * " + b + ")");
      case WEFT_TE_DIV:
      case WEFT_TE_FLOORDIV:
      case WEFT_TE_FLOORMOD: return narrow(t, divide(n.op, type, is_signed(t)) + args);
      // As std::min / std::max: the first operand when unordered.
      case WEFT_TE_MIN:
        return helpers_.need("weft_min_" + suffix(type), type + " weft_min_" + suffix(type) + "(" + type + " a, " +
                                                             type + " b) { return b < a ? b : a; }") + args;
      case WEFT_TE_MAX:
        return helpers_.need("weft_max_" + suffix(type), type + " weft_max_" + suffix(type) + "(" + type + " a, " +
                                                             type + " b) { return a < b ? b : a; }") + args;
      case WEFT_TE_EQ: return "(" + a + " == " + b + ")";
      case WEFT_TE_NE: return "(!(" + a + " == " + b + "))";  // true when unordered
      case WEFT_TE_LT: return "(" + a + " < " + b + ")";
      case WEFT_TE_LE: return "(" + a + " <= " + b + ")";
      case WEFT_TE_GT: return "(" + a + " > " + b + ")";
      case WEFT_TE_GE: return "(" + a + " >= " + b + ")";
      // Both operands evaluated, as the other generators do (a division by zero in either fails the run).
      case WEFT_TE_AND: return helpers_.need("weft_and", "bool weft_and(bool a, bool b) { return a && b; }") + args;
      case WEFT_TE_OR: return helpers_.need("weft_or", "bool weft_or(bool a, bool b) { return a || b; }") + args;
      default: break;
    }
    throw sdk::Error("binary operator " + std::to_string(n.op) + " on " + dtype_text(t), WEFT_STATUS_UNSUPPORTED);
  }

  /// The helper dividing two values of `type`: floats as IEEE does (floor
  /// division rounding the quotient down); integers truncating, a zero
  /// divisor setting the launch's failure flag, a signed division by -1
  /// wrapping.
  std::string divide(int32_t op, const std::string& type, bool is_signed_type) {
    const std::string name =
        std::string(op == WEFT_TE_DIV ? "weft_div_" : op == WEFT_TE_FLOORDIV ? "weft_floordiv_" : "weft_floormod_") +
        suffix(type);
    const std::string head = type + " " + name + "(" + type + " a, " + type + " b) {\n";
    if (type == "float" || type == "double") {
      const char* body = op == WEFT_TE_DIV        ? "  return a / b;\n"
                         : op == WEFT_TE_FLOORDIV ? "  return floor(a / b);\n"
                                                  : "  return a - floor(a / b) * b;\n";
      return helpers_.need(name, head + body + "}\n");
    }
    const std::string zero = int_literal(0, type), one = int_literal(1, type);
    std::string body = "  if (b == " + zero + ") { weft_failed.flags[weft.slot] = 1u; return " + zero + "; }\n";
    if (!is_signed_type) {
      body += op == WEFT_TE_FLOORMOD ? "  return a - (a / b) * b;\n" : "  return a / b;\n";
      return helpers_.need(name, head + body + "}\n");
    }
    const std::string minus_one = int_literal(-1, type);
    body += "  if (b == " + minus_one + ") return " + (op == WEFT_TE_FLOORMOD ? zero : "-a") + ";\n";
    body += "  " + type + " q = a / b, r = a - q * b;\n";
    if (op == WEFT_TE_DIV) body += "  return q;\n";
    // Truncation rounded toward zero: step down where the remainder and the divisor differ in sign.
    else if (op == WEFT_TE_FLOORDIV)
      body += "  return (r != " + zero + " && ((r < " + zero + ") != (b < " + zero + "))) ? q - " + one + " : q;\n";
    else
      body += "  return (r != " + zero + " && ((r < " + zero + ") != (b < " + zero + "))) ? r + b : r;\n";
    return helpers_.need(name, head + body + "}\n");
  }

  std::string cast(const weft_loop_node_t& n) {
    const DLDataType to = n.dtype, from = p_.operand(n, 0).dtype;
    const std::string v = expr(n.operands[0]);
    const std::string to_type = value_type(to), from_type = value_type(from);
    if (is_bool(to)) {  // nonzero and not NaN is true
      if (is_float(from))
        return helpers_.need("weft_nonzero_" + suffix(from_type),
                             "bool weft_nonzero_" + suffix(from_type) + "(" + from_type +
                                 " x) { return !(x == " + int_literal(0, from_type) + ") && !isnan(x); }") +
               "(" + v + ")";
      if (is_bool(from)) return v;
      return "(" + v + " != " + int_literal(0, from_type) + ")";
    }
    if (is_bool(from)) return "(" + v + " ? " + int_literal(1, to_type) + " : " + int_literal(0, to_type) + ")";
    if (is_float(to)) return narrow(to, to_type + "(" + v + ")");
    if (is_float(from)) return saturating_cast(from_type, to) + "(" + v + ")";
    return narrow(to, to_type + "(" + v + ")");
  }

  /// The helper converting a float to the integer type `to`: toward zero,
  /// saturating at its range, NaN to 0 (the reference cast's rule).
  std::string saturating_cast(const std::string& from_type, DLDataType to) {
    const std::string to_type = value_type(to);
    const std::string name = "weft_" + suffix(from_type) + "_to_" + dtype_text(to);
    const bool s = is_signed(to);
    // The range's ends as integers of to_type, and as floats (powers of two, exact).
    const double low = s ? -std::ldexp(1.0, to.bits - 1) : 0.0;
    const double high_end = s ? std::ldexp(1.0, to.bits - 1) : std::ldexp(1.0, to.bits);  // just past the largest
    const int64_t low_int = s ? (to.bits == 64 ? INT64_MIN : -(int64_t{1} << (to.bits - 1))) : 0;
    const std::string high_int =
        s ? int_literal(to.bits == 64 ? INT64_MAX : (int64_t{1} << (to.bits - 1)) - 1, to_type)
          : (to.bits == 64 ? std::string("18446744073709551615ul")
                           : int_literal(static_cast<int64_t>((uint64_t{1} << to.bits) - 1), to_type));
    std::string body = to_type + " " + name + "(" + from_type + " x) {\n";
    body += "  if (isnan(x)) return " + int_literal(0, to_type) + ";\n";
    body += "  if (x <= " + float_literal(low, from_type) + ") return " + int_literal(low_int, to_type) + ";\n";
    body += "  if (x >= " + float_literal(high_end, from_type) + ") return " + high_int + ";\n";
    body += "  return " + to_type + "(x);\n}\n";
    return helpers_.need(name, body);
  }

  std::string call(const weft_loop_node_t& n) {
    const DLDataType t = n.dtype;
    const std::string type = value_type(t);
    std::vector<std::string> args;
    for (size_t k = 0; k < n.num_operands; ++k) args.push_back(expr(n.operands[k]));
    if (args.empty()) throw sdk::Error("an intrinsic call without arguments", WEFT_STATUS_INTERNAL);
    const std::string& x = args[0];
    auto second = [&]() -> const std::string& {
      if (args.size() != 2)
        throw sdk::Error("intrinsic " + std::to_string(n.op) + " takes two arguments", WEFT_STATUS_INTERNAL);
      return args[1];
    };
    if (!is_float(t)) {
      switch (n.op) {
        case WEFT_TE_NEG: return narrow(t, "(-" + x + ")");
        case WEFT_TE_ABS: return is_signed(t) ? narrow(t, "abs(" + x + ")") : x;
        case WEFT_TE_NOT: return is_bool(t) ? "(!" + x + ")" : narrow(t, "(~" + x + ")");
        default: throw sdk::Error("intrinsic " + std::to_string(n.op) + " of " + dtype_text(t), WEFT_STATUS_UNSUPPORTED);
      }
    }
    const std::string one = type == "double" ? "1.0lf" : "1.0";
    std::string r;
    switch (n.op) {
      case WEFT_TE_NEG: return "(-" + x + ")";
      case WEFT_TE_ABS: return "abs(" + x + ")";
      case WEFT_TE_SQRT: r = "sqrt(" + x + ")"; break;
      case WEFT_TE_RSQRT: r = "(" + one + " / sqrt(" + x + "))"; break;
      case WEFT_TE_FLOOR: r = "floor(" + x + ")"; break;
      case WEFT_TE_CEIL: r = "ceil(" + x + ")"; break;
      case WEFT_TE_ROUND: r = "roundEven(" + x + ")"; break;
      case WEFT_TE_TRUNC: r = "trunc(" + x + ")"; break;
      case WEFT_TE_POW:
      case WEFT_TE_FMOD: r = float_intrinsic(helpers_, n.op, type) + "(" + x + ", " + second() + ")"; break;
      default: {
        const std::string f = float_intrinsic(helpers_, n.op, type);
        if (f.empty())
          throw sdk::Error("intrinsic " + std::to_string(n.op) + " of " + dtype_text(t), WEFT_STATUS_UNSUPPORTED);
        r = f + "(" + x + ")";
      }
    }
    return narrow(t, r);
  }

  // ---- Statements -------------------------------------------------------------------------

  static void line(std::string& out, int depth, const std::string& text) {
    out.append(static_cast<size_t>(depth) * 2, ' ');
    out += text;
    out += '\n';
  }

  void stmt(int32_t i, std::string& out, int depth) {
    const weft_loop_node_t& n = p_.node(i);
    switch (n.kind) {
      case WEFT_LOOP_FOR: {
        const std::string v = var_name(n.var);
        line(out, depth, "for (int " + v + " = " + int_literal(n.int_value, "int") + "; " + v + " < " +
                             int_literal(n.int_value + n.extent, "int") + "; ++" + v + ") {");
        stmt(n.operands[0], out, depth + 1);
        line(out, depth, "}");
        return;
      }
      case WEFT_LOOP_STORE: return store(n, out, depth);
      case WEFT_LOOP_ALLOCATE: {
        const weft_loop_buffer_t& b = p_.buffer(n.buffer);
        if (b.num_elements > kMaxLocalScratch)
          throw sdk::Error("an invocation's scratch " + std::string(b.name) + " of " + std::to_string(b.num_elements) +
                               " elements is more than a GPU thread holds",
                           WEFT_STATUS_UNSUPPORTED);
        line(out, depth, "{");
        line(out, depth + 1, value_type(b.dtype) + " l" + std::to_string(n.buffer) + "[" +
                                 std::to_string(std::max<int64_t>(b.num_elements, 1)) + "];");
        stmt(n.operands[0], out, depth + 1);
        line(out, depth, "}");
        return;
      }
      case WEFT_LOOP_IF:
        line(out, depth, "if (" + expr(n.operands[0]) + ") {");
        stmt(n.operands[1], out, depth + 1);
        if (n.num_operands == 3) {
          line(out, depth, "} else {");
          stmt(n.operands[2], out, depth + 1);
        }
        line(out, depth, "}");
        return;
      case WEFT_LOOP_LET:
        line(out, depth, "{");
        line(out, depth + 1, value_type(p_.var(n.var).dtype) + " " + var_name(n.var) + " = " + expr(n.operands[0]) + ";");
        stmt(n.operands[1], out, depth + 1);
        line(out, depth, "}");
        return;
      case WEFT_LOOP_SEQ:
        for (size_t k = 0; k < n.num_operands; ++k) stmt(n.operands[k], out, depth);
        return;
      default: break;
    }
    throw sdk::Error("loop-program node " + std::to_string(i) + " of kind " + std::to_string(n.kind) +
                         " is not a statement",
                     WEFT_STATUS_INTERNAL);
  }

  // ---- Stages -----------------------------------------------------------------------------

  /// The top-level statements become stages; a top-level allocation's
  /// scratch lives in device memory across the stages under it, and a
  /// top-level loop of one iteration binds its variable for them.
  void split(int32_t i) {
    const weft_loop_node_t& n = p_.node(i);
    if (n.kind == WEFT_LOOP_SEQ) {
      for (size_t k = 0; k < n.num_operands; ++k) split(n.operands[k]);
    } else if (n.kind == WEFT_LOOP_ALLOCATE) {
      bind(n.buffer, ShaderBinding::Kind::kScratch);
      split(n.operands[0]);
    } else if (n.kind == WEFT_LOOP_FOR && n.extent == 1) {
      outer_bindings_.push_back("const int " + var_name(n.var) + " = " + int_literal(n.int_value, "int") + ";");
      split(n.operands[0]);
      outer_bindings_.pop_back();
    } else if (n.kind == WEFT_LOOP_FOR && n.op == WEFT_LOOP_PARALLEL) {
      stage(n.operands[0], n.var, n.int_value, n.extent);
    } else {
      stage(i, -1, 0, 1);
    }
  }

  /// A stage running `body` once per value of `var` in [min, min + extent)
  /// (once, on one invocation, without a var).
  void stage(int32_t body, int32_t var, int64_t min, int64_t extent) {
    helpers_ = GlslHelpers();
    used_bindings_.clear();
    std::string main_body;
    const int64_t workgroups = workgroups_for(extent, max_workgroups_);
    if (extent > INT32_MAX)
      throw sdk::Error("a parallel loop of " + std::to_string(extent) + " iterations", WEFT_STATUS_UNSUPPORTED);
    int depth = 1;
    for (const std::string& b : outer_bindings_) line(main_body, depth, b);
    if (var >= 0) {
      line(main_body, depth, "for (uint t = gl_GlobalInvocationID.x; t < weft_iterations; t += weft_grid) {");
      line(main_body, depth + 1, "const int " + var_name(var) + " = int(t) + " + int_literal(min, "int") + ";");
    } else {
      line(main_body, depth, "if (gl_GlobalInvocationID.x == 0u) {");
    }
    stmt(body, main_body, depth + 1);
    line(main_body, depth, "}");
    plan_.stages.push_back({shader_text(main_body), extent, workgroups});
  }

  std::string shader_text(const std::string& main_body) const {
    std::string s = "#version 450\n";
    // Types other than 32-bit ones (and bool values) need the explicit
    // arithmetic types; storing bytes and halves, the storage extensions.
    bool other_widths = false, narrow8 = false, narrow16 = false;
    auto sized = [](DLDataType t) { return t.bits != 32 && !is_bool(t); };
    for (size_t i = 0; i < p_.num_nodes(); ++i) {
      const weft_loop_node_t& n = p_.node(static_cast<int32_t>(i));
      other_widths |= n.kind <= WEFT_LOOP_LOAD && sized(n.dtype);
    }
    for (const ShaderBinding& b : plan_.bindings) {
      const DLDataType t = p_.buffer(b.buffer).dtype;
      narrow8 |= t.bits <= 8;
      narrow16 |= t.bits == 16;
      other_widths |= t.bits != 32;
    }
    if (other_widths) s += "#extension GL_EXT_shader_explicit_arithmetic_types : require\n";
    if (narrow8) s += "#extension GL_EXT_shader_8bit_storage : require\n";
    if (narrow16) s += "#extension GL_EXT_shader_16bit_storage : require\n";
    // The grid's shape is specialized when the pipeline is made (kernel.h).
    s += "layout(local_size_x_id = 0) in;\n";
    s += "layout(constant_id = 1) const uint weft_iterations = 1u;  // of the parallel loop\n";
    s += "layout(constant_id = 2) const uint weft_grid = 1u;        // invocations in the dispatch\n";
    s += "layout(std430, set = 0, binding = 0) buffer WeftFailed { uint flags[]; } weft_failed;\n";
    for (size_t k = 0; k < plan_.bindings.size(); ++k) {
      if (!used_bindings_.count(k)) continue;
      const weft_loop_buffer_t& b = p_.buffer(plan_.bindings[k].buffer);
      s += "layout(std430, set = 0, binding = " + std::to_string(k + 1) + ") buffer B" + std::to_string(k) + " { " +
           storage_type(b.dtype) + " v[]; } b" + std::to_string(k) + ";  // " + b.name + "\n";
    }
    s += "layout(push_constant) uniform Launch { uint slot;";
    if (plan_.arg_slots) s += " int offsets[" + std::to_string(plan_.arg_slots) + "];";
    s += " } weft;\n";
    s += helpers_.text();
    s += "void main() {\n" + main_body + "}\n";
    return s;
  }

  const sdk::LoopProgram& p_;
  const ShaderFeatures& features_;
  const int64_t max_workgroups_;
  ShaderPlan plan_;
  std::unordered_map<int32_t, size_t> binding_of_;  // program buffer -> its binding
  std::vector<std::string> outer_bindings_;         // top-level loops of one iteration
  GlslHelpers helpers_;                              // the current stage's
  std::set<size_t> used_bindings_;                  // the current stage's
};

}  // namespace

bool holds_dtype(const ShaderFeatures& f, DLDataType t) {
  if (t.lanes != 1) return false;
  if (is_bool(t)) return f.storage8;
  if (t.code == kDLFloat)
    return t.bits == 32 || (t.bits == 16 && f.storage16 && f.float16) || (t.bits == 64 && f.float64);
  if (t.code == kDLBfloat) return t.bits == 16 && f.storage16 && f.int16;
  if (t.code == kDLInt || t.code == kDLUInt)
    return t.bits == 32 || (t.bits == 8 && f.storage8 && f.int8) || (t.bits == 16 && f.storage16 && f.int16) ||
           (t.bits == 64 && f.int64);
  return false;
}

ShaderPlan generate_glsl(const sdk::LoopProgram& program, const ShaderFeatures& features, int64_t max_workgroups) {
  return ShaderEmitter(program, features, max_workgroups).emit();
}

}  // namespace vulkan_target
