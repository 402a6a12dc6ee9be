export { canonicalJsonStringify, hashMessages } from './canonical-json.js';
export { dryRunCompaction, type CompactionPreview, type CompactionPreviewOptions, type TranscriptRange } from './dry-run.js';
export { splitIntoGroups, type MessageGroup } from './groups.js';
export { selectRecentTail, selectTail, type TailBudget, type TailSelection } from './select-tail.js';
