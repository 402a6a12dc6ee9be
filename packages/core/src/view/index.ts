/* `@forge/core/view`: which stored messages a request carries (the view rule) and the tails it keeps. */
export { splitIntoGroups } from './groups.js';
export {
  budgetRequest,
  decideRequest,
  selectRequestView,
  selectViewRange,
  summarizeView,
  viewHistory,
  type RequestViewCheckpoint,
} from './request-view.js';
export { selectRecentTail } from './select-tail.js';
