export {
  describeRefusal,
  formatBytes,
  openRegularFile,
  readAtMost,
  readRegularFile,
  type FileKind,
  type FileRefusal,
  type OpenedRegularFile,
  type ReadRegularFile,
  type RegularFileOptions,
} from './regular-file.js';
