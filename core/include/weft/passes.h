// The passes that need no knowledge of particular ops, and the checks they use.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/expr.h"
#include "weft/module.h"
#include "weft/pass.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// Infers the type of every expression of every function, Relay-style: each op
/// call's type comes from its op's relation once its argument types are known;
/// everything else (variables, functions, lets, ifs, tuples, calls of functions
/// and closures, calls between module functions in any order) by unification.
///
/// Fills checked_type on every expression but Op nodes (an op is polymorphic:
/// its instance type is the call's business) and on each function's GlobalVar.
/// As Relay does, it also writes what it inferred where annotations are missing:
/// an unannotated Var becomes an annotated one and a Function without a return
/// type gets one, so those functions come back rebuilt (the original nodes get
/// checked types too).
///
/// Throws weft::Error printing the offending expression (its position when
/// parsed) and the mismatching types; a relation's own error keeps its message
/// and gains the op name and the call. A type that nothing determines is an
/// error naming the variable.
IRModule infer_type(const IRModule& mod);
/// Infers types in a standalone expression; its free variables are typed by
/// their annotations or by their uses. GlobalVars need a module: an error here.
Expr infer_type(const Expr& expr);

/// Why `mod` is not well formed, or nullopt if it is: a variable bound twice,
/// a variable used outside the scope that binds it, a free variable in a module
/// function, a reference to a global the module does not define, a tuple index
/// out of range of a literal tuple or of a tuple whose type is known.
std::optional<std::string> well_formed_violation(const IRModule& mod);
/// As above for an expression, whose free variables are allowed (as Relay).
std::optional<std::string> well_formed_violation(const Expr& expr);

// Registered passes (also available by name through PassRegistry).

/// "InferType", opt_level 0: infer_type on the module.
Pass InferType();
/// "DeadCodeElimination", opt_level 1: drops let bindings whose variable is
/// never used (transitively: a binding used only by dead bindings is dead too)
/// and whose value is pure. The purity rule knows no op by name: every op is
/// pure (no op in weft has hidden state, as almost all of Relay's), so is a call
/// of a function whose body is pure (a literal, a global or a let-bound one);
/// a call of any other callee (a parameter, a tuple field, a call's result)
/// may do anything, so its binding stays. Needs no types, so unlike Relay's it
/// requires no InferType before it.
Pass DeadCodeElimination();
/// "EliminateCommonSubexpr", opt_level 3, as Relay's: a call of an op (of any
/// fusion pattern, opaque included: Relay skips only stateful ops, and weft has
/// none) with at least one argument is replaced by an earlier call of the same
/// op with equal attrs and the same (already merged) arguments, where scalar
/// constants of equal value and tuples of the same fields count as the same;
/// likewise a TupleGetItem of the same tuple and index. Unlike Relay, a call is
/// merged only with one in the same function (never across a closure's
/// boundary), so no closure body comes to share nodes with its enclosing
/// function. Needs no types (no InferType required). Statistic: "expressions
/// merged", the calls and projections replaced by an earlier one.
Pass EliminateCommonSubexpr();
/// "FoldConstant", opt_level 2, as Relay's: an op call whose arguments are all
/// constants or tuples of constants is evaluated on the op's reference kernel
/// (its output type from the op's relation) and replaced by its value, a tuple
/// of constants for a tuple output; folding cascades bottom-up. Also, as Relay:
/// a projection of a literal tuple becomes that field, a let-bound constant is
/// inlined at its uses and its binding dropped, and an `if` on a constant
/// condition becomes the branch taken. Left alone, as in Relay: calls of
/// functions, closures and globals (their arguments are still folded), calls
/// without arguments (`zeros(shape=...)` would only grow the program), and
/// everything inside a function marked Primitive. Also left alone: ops without
/// a reference kernel and calls whose output has a `?` extent (Relay's VM would
/// run those). weft has no stateful or non-computational (annotation) ops, and
/// no shape_of/ndarray_size, which Relay folds from a typed non-constant
/// argument. Needs no types; an ill-typed constant call is a weft::Error naming
/// the op and FoldConstant. Records "folded calls" among the statistics.
Pass FoldConstant();
/// "FuseOps", opt_level 0, requires InferType: Relay's operator fusion. Builds
/// the function's dataflow graph and post-dominator tree, then groups ops by
/// the fusion pattern each op declares (OpDef::pattern; the pass knows no op by
/// name): an out-elementwise-fusable op (a convolution, dense) absorbs the
/// elementwise and broadcast ops its result flows into when all paths meet
/// again; elementwise and broadcast ops fuse into injective, reduction and
/// anchored consumers; injective chains and tuples fuse along injective paths;
/// injective fields fuse into a concatenate's tuple. A node fuses with its
/// post-dominator only when every path between them allows it, so a diamond
/// with an opaque branch stays apart. Scalar constants fuse into their users;
/// other constants, variables, lets, ifs and calls of functions stay outside.
///
/// Each group becomes a function marked Primitive=1 (0 when it holds no call)
/// whose parameters p0, p1, ... take the values from outside, called where its
/// result was: `%0 = fn (%p0: Tensor[...], Primitive=1) -> Tensor[...] {...};
/// %1 = %0(%x);`. Functions already Primitive (or with a Compiler) are left as
/// they are. The fusion level is `fuse_opt_level`, or the context's opt_level
/// when negative; at level 0 every op call is a group of its own. Context keys:
/// "relay.FuseOps.max_depth" (int, default 256: the most nodes in one group)
/// and "relay.FuseOps.link_params" (bool, default false: constants stay inside
/// the functions instead of becoming parameters). With max_function_args
/// nonzero, no function takes more arguments than that, counting one output
/// buffer per use and the extents and strides of `?` shapes, as Relay counts
/// for targets that limit kernel arguments (Relay reads it from the current
/// target; weft's callers pass their target's). Linear in the graph's size
/// times max_depth, with no recursion on its depth.
///
/// Needs checked types (run InferType first): an untyped expression is a
/// weft::Error naming FuseOps and the expression. The result is typed, as
/// Relay's is (its function passes end with InferType).
Pass FuseOps(int fuse_opt_level = -1, size_t max_function_args = 0);
/// "WellFormedCheck", opt_level 0: a weft::Error if the module is not well formed.
Pass WellFormedCheck();
/// "SimplifyInference", opt_level 0, requires InferType, as Relay's: each op
/// call is replaced by its op's "simplify_inference" rewrite (see
/// weft/call_rewrites.h), which the nn plugin gives nn.batch_norm and
/// nn.dropout (their projection [0]), nn.instance_norm, nn.layer_norm,
/// nn.group_norm and nn.l2_normalize: the reference's arithmetic, with its
/// epsilon placement and center/scale flags. Needs a typed program (an error
/// naming the pass otherwise); leaves it typed throughout.
Pass SimplifyInference();
/// "CanonicalizeOps", opt_level 3, requires InferType, as Relay's: each op
/// call is replaced by its op's "canonicalize" rewrite; the nn plugin's
/// nn.bias_add becomes add(data, expand_dims(bias, axis=1,
/// num_newaxis=rank - axis - 1)) (bias itself when axis is the last). Needs a
/// typed program (an error naming the pass otherwise); leaves it typed.
Pass CanonicalizeOps();
/// "SimplifyExpr", opt_level 0, requires InferType, as Relay's: each op call is
/// replaced by its op's "simplify_expr" rewrite. The tensor plugin's follow
/// the reference's SimplifyReshape (reshape of reshape -> one reshape to the
/// static result shape), SimplifyTranspose and SimplifyNoOpTranspose (composed
/// or identity transposes; back-to-back layout_transforms that cancel, compose
/// when both change the rank, or become a transpose when both permute),
/// SimplifySameCast and EliminateIdentityRewrite (x + 0, 0 + x, x - 0, x * 1,
/// 1 * x, x / 1 with a constant of unit dims, zeros/ones or zeros_like/
/// ones_like, when x already has the result's type), SimplifyConsecutiveCast,
/// SimplifyClipAndConsecutiveCast and SimplifyClip (counting only casts that
/// keep every value, and integer clips), ConcretizeLikeRewrite (*_like ops of
/// a static type), FullElementwise, SimplifyAdd, SimplifyRSqrt,
/// SimplifyAdjacentMultiplyOrAdd, SwitchAddMultiply and SimplifyBinomial
/// (plugins/tensor/constant_arithmetic.h); and squeeze/expand_dims pairs that
/// give their data's type back cancel. The calls a rewrite builds on constants
/// alone are folded, and the calls it builds are offered to their own rewrites
/// first (rewrite_calls), as the reference's rewrites run to a fixed point.
/// Needs a typed program (an error naming the pass otherwise); leaves it typed.
Pass SimplifyExpr();
/// "SimplifyExprPostAlterOp", opt_level 0, requires InferType, as Relay's: the
/// clean-up relay.build runs after AlterOpLayout, with only the rewrites the
/// reference keeps there (each op's "simplify_expr_post_alter_op"):
/// EliminateIdentityRewrite (add, subtract, multiply, divide), SimplifyReshape,
/// SimplifySameCast, SimplifyConsecutiveCast, SimplifyClipAndConsecutiveCast
/// and SimplifyClip, as SimplifyExpr applies them. Transposes and
/// layout_transforms are left as they are (the reference's list has no
/// SimplifyTranspose). Needs a typed program (an error naming the pass
/// otherwise); leaves it typed.
Pass SimplifyExprPostAlterOp();

/// "InlineLocalFunctions", opt_level 1: a call of a function literal that
/// nothing else refers to (not a Primitive group) becomes the function's body
/// with its parameters bound to the call's arguments, as Relay's
/// DeadCodeElimination(inline_once=True) inlines what is used once; so the
/// weights a model passes into a local cell function reach their ops as the
/// constants they are bound to. Needs no types; leaves the inlined parts
/// untyped.
Pass InlineLocalFunctions();

/// "RemoveUnusedFunctions", opt_level 1, as Relay's: keeps the functions named
/// in entry_functions and every function they reach through a global
/// reference (a call, or a GlobalVar passed as a value), transitively; drops
/// the others. An entry or a referenced global that the module does not define
/// is a weft::Error naming it. Needs no types.
Pass RemoveUnusedFunctions(std::vector<std::string> entry_functions = {"main"});
IRModule remove_unused_functions(const IRModule& mod, const std::vector<std::string>& entry_functions = {"main"});

/// Binds named parameters of `fn` to constants, as relay.build(params=...)
/// does (bind_params_by_name): each parameter named in `params` is replaced by
/// a Constant holding its tensor in the body and leaves the parameter list;
/// the others stay, in order. Names are the parameters' user-facing names
/// (param_names in weft/names.h: lstm's data, data1, ...). Unlike Relay, which
/// skips them, a name that is not a parameter is a weft::Error naming it and
/// listing the parameters; so is a tensor whose dtype or shape does not fit the
/// parameter's type (annotated, else inferred; `?` fits any extent), naming the
/// parameter and its type. Needs no types.
Function bind_params(const Function& fn, const std::map<std::string, Tensor>& params);
/// bind_params on main; a module without main is a weft::Error.
IRModule bind_params(const IRModule& mod, const std::map<std::string, Tensor>& params);
/// "BindParams", opt_level 0: bind_params on main with these values. Not in the
/// registry (it needs its values): `weft opt --params` and callers create it.
Pass BindParams(std::map<std::string, Tensor> params);
/// Layouts the user wants per op name, one per input ("default" where the op
/// chooses), e.g. {"nn.conv2d": {"NHWC", "default"}}.
using DesiredLayouts = std::map<std::string, std::vector<std::string>>;
/// Reads desired layouts from JSON text, {"nn.conv2d": ["NHWC", "default"]};
/// anything else is a weft::Error showing the expected form.
DesiredLayouts parse_desired_layouts(std::string_view json);
/// Relay's ConvertLayout on one typed function: each op named in `desired` is
/// rebuilt in those layouts by its convert_layout hook; every other op follows
/// its producers where its infer_layout hook allows (elementwise ops, reductions
/// with their axes renumbered, ...) and otherwise gets its inputs back in their
/// old layouts. A layout_transform is inserted only where a value's layout
/// differs from the one its consumer needs, once per value and layout pair
/// (so consecutive transforms back and forth never arise); the function's
/// result comes back in its original layout. A weight that is a constant gets
/// a layout_transform of a constant, which FoldConstant folds. An op name that
/// is not registered or has no convert_layout hook, or a bad layout string, is
/// a weft::Error naming it; an untyped function is an error naming the pass.
///
/// `skip_layers` is Relay's LayoutConfig(skip_layers=[...]): the calls of ops
/// flagged is_layout_layer (nn.conv2d, nn.deformable_conv2d) that `desired`
/// names are numbered 0, 1, ... in program order (the function's post-order,
/// as its text lists them), and those numbered here keep their layouts (the
/// ops around them then follow or get transforms as for any call kept). A
/// negative number is a weft::Error; one past the last layer skips nothing.
Function convert_layout(const Function& fn, const DesiredLayouts& desired,
                        const std::vector<int64_t>& skip_layers = {});
/// "ConvertLayout", opt_level 3 (needs InferType): convert_layout on every
/// function with `desired` and `skip_layers` (each function numbers its own
/// layers from 0).
Pass ConvertLayout(DesiredLayouts desired, std::vector<int64_t> skip_layers = {});
/// The same, with the desired layouts read (as JSON) from the PassContext config
/// "relay.ConvertLayout.desired_layouts" ("{}": nothing to convert) and the
/// layers to skip from "relay.ConvertLayout.skip_layers" (an int list, default
/// empty); what the registry's "ConvertLayout" makes.
Pass ConvertLayout();

/// A target's alter hook for one op (Relay's FTVMAlterOpLayout): the call
/// (typed, its original arguments) rebuilt in the layouts the target prefers,
/// possibly as another op taking as many arguments, or a null Expr to keep it.
using AlterLayout = std::function<Expr(const Call& call)>;
/// Alter hooks by op name.
using AlterLayouts = std::map<std::string, AlterLayout>;
/// Relay's AlterOpLayout on one typed function: each op call is rebuilt by the
/// first of `targets` (priority order) that supports it, through its
/// Target::alter_layout, or, when that keeps the call (or no target supports
/// it), by the hook `alter` has for its op; the graph follows as in
/// convert_layout (same transforms, same guarantees, same errors).
Function alter_op_layout(const Function& fn, const AlterLayouts& alter,
                         std::span<const std::shared_ptr<const Target>> targets = {});
/// "AlterOpLayout", opt_level 3 (needs InferType): alter_op_layout on every
/// function, with the targets of the context it runs under (PassContext::targets,
/// which weft::build sets to the build's). The registry's "AlterOpLayout" has no
/// hooks of its own: outside a build, nothing is altered.
Pass AlterOpLayout(AlterLayouts alter = {});

/// "ToANormalForm", opt_level 1, as Relay's: in every function (but those
/// with a Compiler attr), each call, tuple, projection, constant, if and
/// closure is bound by a let (to a fresh %x, or to the let variable it was
/// already bound to) in the innermost scope (function body, let body, if
/// branch) common to all its uses, in evaluation order (a call's arguments,
/// then its callee); variables, globals and ops stay atomic; Primitive
/// functions stay as they are. As Relay, an existing let's body is bound
/// again (`let %x = relu(%a); %x` becomes `...; let %x1 = %x; %x1`). Needs no
/// types; the new variables are unannotated.
Pass ToANormalForm();
Function to_a_normal_form(const Function& fn);
/// "ToGraphNormalForm", opt_level 1, as Relay's: every let disappears, each
/// use of its variable becoming the bound value (shared, not copied), so the
/// program is a dataflow graph again; a let whose value uses its own variable
/// (a recursive closure) stays, as `let %f = value; %f` where %f was used.
/// Needs no types.
Pass ToGraphNormalForm();
Expr to_graph_normal_form(const Expr& expr);

/// Registers the passes above with `registry` under their names, skipping names
/// already there. PassRegistry::global() does this on first use, so the core
/// passes are always available by name.
void register_core_passes(PassRegistry& registry = PassRegistry::global());

}  // namespace weft

#pragma GCC visibility pop
