export { canonicalJsonStringify, hashMessages } from './canonical-json.js';
export { splitIntoGroups, type MessageGroup } from './groups.js';
export {
  budgetRequest,
  decideRequest,
  selectRequestView,
  selectViewRange,
  summarizeView,
  viewHistory,
  ViewHoleError,
  type FixedRequestParts,
  type RequestView,
  type RequestViewCheckpoint,
  type RequestViewInput,
  type ViewDecision,
  type ViewRange,
  type ViewSummary,
} from './request-view.js';
export { selectRecentTail, selectTail, type TailBudget, type TailSelection } from './select-tail.js';
