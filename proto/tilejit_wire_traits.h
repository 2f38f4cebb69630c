// SPDX-License-Identifier: Apache-2.0
// How gRPC deserialises the messages of the tilejit service (requests above all).
//
// The proto3 parser rejects a string field holding invalid UTF-8 (and any malformed bytes),
// and gRPC's stock protobuf traits then answer INTERNAL with an empty message. A malformed
// request is the caller's error, so this full specialisation keeps the standard wire
// handling but answers INVALID_ARGUMENT with a readable message naming the message type.
//
// An explicit specialisation must be visible before any use in every translation unit, so
// proto/CMakeLists.txt force-includes this header (-include) into every target that uses
// tilejit_proto, the generated code included. Nothing to call here directly.
#pragma once

#include <grpcpp/impl/codegen/proto_buffer_reader.h>
#include <grpcpp/impl/codegen/proto_buffer_writer.h>
#include <grpcpp/impl/codegen/proto_utils.h>

#include "tilejit/v1/tilejit.pb.h"

namespace tilejit::v1::wire {

inline grpc::Status ParseRequest(grpc::ByteBuffer* buffer, google::protobuf::MessageLite* msg) {
  if (buffer == nullptr) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request");
  grpc::Status result;
  {
    grpc::ProtoBufferReader reader(buffer);
    if (!reader.status().ok()) return reader.status();
    if (!msg->ParseFromZeroCopyStream(&reader)) {
      result = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            "received bytes are not a valid " + msg->GetTypeName() +
                                ": malformed protobuf bytes, or a string field (such as "
                                "source) that is not valid UTF-8");
    }
  }
  buffer->Clear();
  return result;
}

}  // namespace tilejit::v1::wire

// gRPC's generated handlers (1.51) deserialise every request through the MessageLite base
// (RpcMethodHandler<..., MessageLite, MessageLite>), so the specialisation is for MessageLite
// itself; it covers the health service too. Serialisation is the stock one.
template <>
class grpc::SerializationTraits<google::protobuf::MessageLite, void> {
 public:
  static grpc::Status Serialize(const google::protobuf::MessageLite& msg, grpc::ByteBuffer* bb,
                                bool* own_buffer) {
    return grpc::GenericSerialize<grpc::ProtoBufferWriter, google::protobuf::MessageLite>(
        msg, bb, own_buffer);
  }
  static grpc::Status Deserialize(grpc::ByteBuffer* buffer, google::protobuf::MessageLite* msg) {
    return ::tilejit::v1::wire::ParseRequest(buffer, msg);
  }
};
