export { assertBytes, filled, rejectsWithCode } from './assertions.js';
export { ByteModel } from './byte-model.js';
export type { ConformanceCase } from './conformance-case.js';
export type {
  ConformanceOptions,
  DeviceFactory,
  DeviceGeometry,
  TestApi,
} from './conformance-types.js';
export { conformanceCases, runDeviceConformance } from './device-conformance.js';
