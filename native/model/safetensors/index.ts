/** safetensors files: the published format, read and written so that other tools (Python safetensors, PyTorch) read the lab's weights. */
export {
  DTYPES,
  Dtype,
  dtypeBytes,
  dtypeArray,
  toFloat32,
  fromFloat32,
  f32ToBf16Bits,
  bf16BitsToF32,
  f32ToF16Bits,
  f16BitsToF32,
  type TensorData,
} from './dtype';
export {
  SafetensorsError,
  MAX_HEADER_BYTES,
  METADATA_KEY,
  parseHeader,
  parseHeaderLength,
  type Tensor,
  type TensorInfo,
  type SafetensorsHeader,
} from './header';
export { openSafetensors, readSafetensors, parseSafetensors, type SafetensorsFile } from './reader';
export { writeSafetensors, serializeSafetensors, type WriteSafetensorsOptions, type WrittenFile } from './writer';
