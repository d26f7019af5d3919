// aclDataBuffer: a (pointer, size) descriptor; never owns the memory.
#include <new>

#include "acl/acl_base.h"
#include "api/api.h"
#include "report/leak.h"
#include "report/log.h"
#include "rules/rules.h"

struct aclDataBuffer {
  void* data;
  size_t size;
};

using namespace sim;

extern "C" {

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  SIM_API_ENTER_OR(nullptr);
  aclDataBuffer* b = new (std::nothrow) aclDataBuffer{data, size};
  if (b != nullptr) ++g_live_data_buffers;
  return b;
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  SIM_API_ENTER();
  if (dataBuffer == nullptr) return null_arg(__func__, "dataBuffer");
  delete dataBuffer;
  --g_live_data_buffers;
  return ACL_SUCCESS;
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data, size_t size) {
  SIM_API_ENTER();
  if (dataBuffer == nullptr) return null_arg(__func__, "dataBuffer");
  dataBuffer->data = data;
  dataBuffer->size = size;
  return ACL_SUCCESS;
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  SIM_API_ENTER_OR(nullptr);
  return dataBuffer == nullptr ? nullptr : dataBuffer->data;
}

uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer) {
  SIM_API_ENTER_OR(0);
  return dataBuffer == nullptr ? 0 : static_cast<uint32_t>(dataBuffer->size);
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  SIM_API_ENTER_OR(0);
  return dataBuffer == nullptr ? 0 : dataBuffer->size;
}

}  // extern "C"
