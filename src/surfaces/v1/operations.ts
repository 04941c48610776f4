// The metrics module names the 1.0 operations by this path; the table itself is shared by every edge.
export { isV1Method, type V1Method } from '../shared/operations.js';
