export type { Decision, DecisionReason, PolicyStamp, PolicyChange } from './gate/types.js';
