/* A plugin in plain C against weft/plugin.h alone: registers ctest.scale
 * (data * factor, float32) with a type relation, a reference kernel (also
 * prepared per call site), a TE compute built with the te_* host functions
 * and a gradient that builds IR. It proves the
 * boundary needs no C++. Built with HALF_PREPARED, it sets prepare_kernel
 * without the rest of the prepared kernel, which the host refuses. */
#include <stdlib.h>
#include <string.h>
#include <weft/plugin.h>

static const weft_host_api_t* host;

static weft_status_t fail(const char* message) { return host->status_create(WEFT_STATUS_INVALID_ARGUMENT, message); }

static weft_status_t scale_relation(void* user_data, weft_type_t* const* args, size_t num_args, weft_attrs_t* attrs,
                                    weft_type_t** out_type) {
  const int64_t* shape = NULL;
  size_t ndim = 0;
  DLDataType dtype;
  weft_status_t status;
  (void)user_data;
  (void)attrs;
  if (num_args != 1) return fail("ctest.scale takes exactly one argument");
  status = host->type_tensor_info(args[0], &shape, &ndim, &dtype);
  if (status) return status;
  if (dtype.code != kDLFloat || dtype.bits != 32) return fail("ctest.scale expects a float32 tensor");
  return host->type_tensor(shape, ndim, dtype, out_type);
}

static weft_status_t read_factor(weft_attrs_t* attrs, double* factor) {
  weft_attr_value_t* value = NULL;
  weft_status_t status = host->attrs_get(attrs, "factor", &value);
  if (status) return status;
  status = host->attr_value_as_float(value, factor);
  host->attr_value_release(value);
  return status;
}

static weft_status_t scale(double factor, const DLTensor* inputs, size_t num_inputs, DLTensor* outputs,
                           size_t num_outputs) {
  int64_t n = 1;
  const float* in;
  float* out;
  int i;
  if (num_inputs != 1 || num_outputs != 1) return fail("ctest.scale: one input and one output expected");
  for (i = 0; i < inputs[0].ndim; ++i) n *= inputs[0].shape[i];
  in = (const float*)((const char*)inputs[0].data + inputs[0].byte_offset);
  out = (float*)((char*)outputs[0].data + outputs[0].byte_offset);
  for (i = 0; i < n; ++i) out[i] = (float)(in[i] * factor);
  return NULL;
}

static weft_status_t scale_kernel(void* user_data, const DLTensor* inputs, size_t num_inputs, DLTensor* outputs,
                                  size_t num_outputs, weft_attrs_t* attrs) {
  double factor = 0;
  weft_status_t status = read_factor(attrs, &factor);
  (void)user_data;
  if (status) return status;
  return scale(factor, inputs, num_inputs, outputs, num_outputs);
}

/* The prepared kernel (ABI 1.8): the factor is read once per call site into
 * a plan, which every run of that call reads. */
static weft_status_t prepare_scale(void* user_data, weft_type_t* const* arg_types, size_t num_args,
                                   weft_attrs_t* attrs, void** out_plan) {
  double* factor = (double*)malloc(sizeof(double));
  weft_status_t status;
  (void)user_data;
  (void)arg_types;
  (void)num_args;
  if (!factor) return host->status_create(WEFT_STATUS_OUT_OF_MEMORY, "ctest.scale: no memory for a plan");
  status = read_factor(attrs, factor);
  if (status) {
    free(factor);
    return status;
  }
  *out_plan = factor;
  return NULL;
}

static weft_status_t run_prepared_scale(void* user_data, const void* plan, const DLTensor* inputs, size_t num_inputs,
                                        DLTensor* outputs, size_t num_outputs, weft_attrs_t* attrs) {
  (void)user_data;
  (void)attrs;
  return scale(*(const double*)plan, inputs, num_inputs, outputs, num_outputs);
}

static void release_scale_plan(void* user_data, void* plan) {
  (void)user_data;
  free(plan);
}

/* The TE (ABI 1.9): out(i...) = data(i...) * factor, one data axis per
 * dimension of the input placeholder. */
static weft_status_t scale_te(void* user_data, weft_te_tensor_t* const* inputs, size_t num_inputs, weft_attrs_t* attrs,
                              weft_type_t* out_type, weft_te_tensor_t** out_tensors, size_t num_outputs) {
  enum { kMaxRank = 8 };
  weft_te_axis_t* axes[kMaxRank] = {NULL};
  weft_te_expr_t* index[kMaxRank] = {NULL};
  weft_te_expr_t *read = NULL, *factor_expr = NULL, *body = NULL;
  const int64_t* shape = NULL;
  size_t ndim = 0, d;
  DLDataType dtype;
  double factor = 0;
  weft_status_t status;
  (void)user_data;
  (void)out_type;
  if (num_inputs != 1 || num_outputs != 1) return fail("ctest.scale: one input and one output expected");
  status = read_factor(attrs, &factor);
  if (!status) status = host->te_tensor_info(inputs[0], &shape, &ndim, &dtype);
  if (status) return status;
  if (ndim > kMaxRank) return fail("ctest.scale's TE takes up to 8 dimensions");
  for (d = 0; !status && d < ndim; ++d) {
    status = host->te_axis(0, shape[d], 0, "i", &axes[d]);
    if (!status) status = host->te_axis_var(axes[d], &index[d]);
  }
  if (!status) status = host->te_tensor_read(inputs[0], index, ndim, &read);
  if (!status) status = host->te_float(factor, dtype, &factor_expr);
  if (!status) status = host->te_binary(WEFT_TE_MUL, read, factor_expr, &body);
  if (!status) status = host->te_compute("scale", axes, ndim, &body, 1, out_tensors);
  for (d = 0; d < ndim; ++d) {
    host->te_axis_release(axes[d]);
    host->te_expr_release(index[d]);
  }
  host->te_expr_release(read);
  host->te_expr_release(factor_expr);
  host->te_expr_release(body);
  return status;
}

/* d(data * factor) = grad * factor: the same op with the call's attrs. */
static weft_status_t scale_gradient(void* user_data, weft_expr_t* call, weft_expr_t* output_grad,
                                    weft_expr_t** out_grads, size_t num_args) {
  weft_attrs_t* attrs = NULL;
  weft_status_t status;
  (void)user_data;
  if (num_args != 1) return fail("ctest.scale: gradient for one argument expected");
  status = host->expr_call_attrs(call, &attrs);
  if (status) return status;
  status = host->expr_call_op("ctest.scale", &output_grad, 1, attrs, &out_grads[0]);
  host->attrs_release(attrs);
  return status;
}

static weft_status_t init(const weft_host_api_t* h, weft_registrar_t* registrar) {
  weft_attr_value_t* two = NULL;
  weft_attr_field_t field;
  weft_op_input_t input;
  weft_op_desc_t desc;
  weft_status_t status;

  host = h;
  status = host->attr_value_float(2.0, &two);
  if (status) return status;

  memset(&field, 0, sizeof field);
  field.struct_size = sizeof field;
  field.name = "factor";
  field.type = WEFT_ATTR_FLOAT;
  field.default_value = two;
  field.doc = "The multiplier.";
  field.expected = "a number";

  memset(&input, 0, sizeof input);
  input.struct_size = sizeof input;
  input.name = "data";
  input.type_desc = "Tensor";
  input.doc = "A float32 tensor.";

  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.name = "ctest.scale";
  desc.description = "Multiplies a tensor by a constant factor.";
  desc.inputs = &input;
  desc.num_inputs = 1;
  desc.attrs = &field;
  desc.num_attrs = 1;
  desc.pattern = WEFT_PATTERN_ELEMWISE;
  desc.support_level = 2;
  desc.type_relation = scale_relation;
  desc.kernel = scale_kernel;
  desc.te_compute = scale_te;
  desc.prepare_kernel = prepare_scale;
#ifndef HALF_PREPARED
  desc.run_prepared_kernel = run_prepared_scale;
  desc.release_kernel_plan = release_scale_plan;
#else
  (void)run_prepared_scale;
  (void)release_scale_plan;
#endif
  desc.gradient = scale_gradient;

  status = host->register_op(registrar, &desc);
  host->attr_value_release(two);
  return status;
}

WEFT_PLUGIN_ENTRY(init)
