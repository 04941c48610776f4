import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { ERROR_INFO_TYPE, type ErrorInfo } from '../../model/index.js';

/**
 * `grpc-status-details-bin`: a google.rpc.Status holding every ErrorInfo of an error, the gateway's and
 * the agent's (the SDK's encodeGrpcStatusDetails writes one, under A2A's domain). Field numbers are those
 * of google/rpc/status.proto, google/protobuf/any.proto and google/rpc/error_details.proto.
 */
export function encodeStatusDetails(code: number, message: string, infos: readonly ErrorInfo[]): Buffer {
  const status = new BinaryWriter().tag(1, WireType.Varint).int32(code).tag(2, WireType.LengthDelimited).string(message);
  for (const info of infos) {
    status.tag(3, WireType.LengthDelimited).fork();
    status.tag(1, WireType.LengthDelimited).string(ERROR_INFO_TYPE).tag(2, WireType.LengthDelimited).bytes(encodeErrorInfo(info));
    status.join();
  }
  return Buffer.from(status.finish());
}

function encodeErrorInfo(info: ErrorInfo): Uint8Array {
  const writer = new BinaryWriter().tag(1, WireType.LengthDelimited).string(info.reason).tag(2, WireType.LengthDelimited).string(info.domain);
  for (const [key, value] of Object.entries(info.metadata)) {
    writer.tag(3, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(key).tag(2, WireType.LengthDelimited).string(value).join();
  }
  return writer.finish();
}
