export type {
  Frontier,
  FrontierItem,
  FrontierCounts,
  FrontierOptions,
  HostPolicy,
  TakeResult,
  TakenItem,
  ReleaseOptions,
  FailOptions,
  SeedHold,
  WaitReason,
} from './types.js';
export { MemoryFrontier } from './memory-frontier.js';
export { hostInterval, type Interval, type IntervalTerms } from './interval.js';
export { TimerHeap } from './timer-heap.js';
export { Pacer, pacerFor, defaultLimiter, waitChannel, DEFAULT_LEASE_MS, type Slot, type WaitEvent } from './pacer.js';
export { retryAfterMs, parseHttpDate } from './retry-after.js';
