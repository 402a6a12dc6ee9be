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
export {
  DEFAULT_MAX_LINE_BYTES,
  LineSplitter,
  lineText,
  piecesOf,
  readLinePieces,
  readLines,
  readLinesBackward,
  splitLines,
  type Line,
  type LineOptions,
  type LinePiece,
  type ReadLinesOptions,
} from './lines.js';
export {
  syncDirectory,
  writeAll,
  writeDurably,
  writeFailureHint,
  writeFileAtomic,
  type AtomicWriteOptions,
} from './atomic-write.js';
