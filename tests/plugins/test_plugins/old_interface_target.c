/* A target plugin built against the target interface of ABI 1.4-1.6, which
 * ended at `synchronize`: struct_size says so, and the bytes after it (where
 * 1.7's packed_constants lies) are deliberately garbage, which the host must
 * not call. Its kernels do nothing. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <weft/plugin.h>

static int the_kernel;

static weft_status_t create(void* user_data, weft_attrs_t* options, void** out_instance) {
  (void)user_data;
  (void)options;
  *out_instance = NULL;
  return NULL;
}
static void destroy(void* instance) { (void)instance; }
static weft_status_t supports(void* instance, weft_expr_t* call, int* out_supported) {
  (void)instance;
  (void)call;
  *out_supported = 1;
  return NULL;
}
static weft_status_t compile(void* instance, weft_expr_t* primitive, const DLTensor* const* constants,
                             size_t num_params, void** out_kernel) {
  (void)instance;
  (void)primitive;
  (void)constants;
  (void)num_params;
  *out_kernel = &the_kernel;
  return NULL;
}
static void release_kernel(void* instance, void* kernel) {
  (void)instance;
  (void)kernel;
}
static weft_status_t num_devices(void* instance, size_t* out_count) {
  (void)instance;
  *out_count = 1;
  return NULL;
}
static weft_status_t device_info(void* instance, int device, weft_target_device_info_t* out_info) {
  (void)instance;
  (void)device;
  out_info->name = "cpu";
  return NULL;
}
static weft_status_t alloc(void* instance, int device, size_t nbytes, size_t alignment, void** out_buffer) {
  (void)instance;
  (void)device;
  *out_buffer = aligned_alloc(alignment, (nbytes + alignment - 1) / alignment * alignment + alignment);
  return NULL;
}
static void release(void* instance, int device, void* buffer) {
  (void)instance;
  (void)device;
  free(buffer);
}
static weft_status_t copy_from_host(void* instance, void* stream, const void* src, void* dst, size_t dst_offset,
                                    size_t nbytes) {
  (void)instance;
  (void)stream;
  memcpy((char*)dst + dst_offset, src, nbytes);
  return NULL;
}
static weft_status_t copy_to_host(void* instance, void* stream, void* src, size_t src_offset, void* dst,
                                  size_t nbytes) {
  (void)instance;
  (void)stream;
  memcpy(dst, (char*)src + src_offset, nbytes);
  return NULL;
}
static weft_status_t copy_buffer(void* instance, void* stream, void* src, size_t src_offset, void* dst,
                                 size_t dst_offset, size_t nbytes) {
  (void)instance;
  (void)stream;
  memmove((char*)dst + dst_offset, (char*)src + src_offset, nbytes);
  return NULL;
}
static weft_status_t create_stream(void* instance, int device, void** out_stream) {
  (void)instance;
  (void)device;
  *out_stream = NULL;
  return NULL;
}
static void destroy_stream(void* instance, void* stream) {
  (void)instance;
  (void)stream;
}
static weft_status_t launch(void* instance, void* kernel, void* stream, const DLTensor* args, size_t num_args) {
  (void)instance;
  (void)kernel;
  (void)stream;
  (void)args;
  (void)num_args;
  return NULL;
}
static weft_status_t synchronize(void* instance, void* stream) {
  (void)instance;
  (void)stream;
  return NULL;
}

static weft_status_t init(const weft_host_api_t* host, weft_registrar_t* registrar) {
  weft_target_interface_t desc;
  memset(&desc, 0xAB, sizeof desc); /* garbage everywhere the old layout does not reach */
  memset(&desc, 0, offsetof(weft_target_interface_t, packed_constants));
  desc.struct_size = offsetof(weft_target_interface_t, packed_constants);
  desc.name = "oldinterface";
  desc.description = "A target interface of ABI 1.6.";
  desc.device_type = kDLCPU;
  desc.host_addressable = 1;
  desc.create = create;
  desc.destroy = destroy;
  desc.supports = supports;
  desc.compile = compile;
  desc.release_kernel = release_kernel;
  desc.num_devices = num_devices;
  desc.device_info = device_info;
  desc.alloc = alloc;
  desc.free = release;
  desc.copy_from_host = copy_from_host;
  desc.copy_to_host = copy_to_host;
  desc.copy_buffer = copy_buffer;
  desc.create_stream = create_stream;
  desc.destroy_stream = destroy_stream;
  desc.launch = launch;
  desc.synchronize = synchronize;
  return host->register_target_interface(registrar, &desc);
}

WEFT_PLUGIN_ENTRY(init)
