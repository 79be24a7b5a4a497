// 'robots-gate/crawlee': put a RobotsGate in charge of a Crawlee 3 crawler. crawlee is an
// optional peer dependency: only its types are imported here, the caller brings the crawler.
export { gateCrawler, type GateCrawlerOptions, type GatedCrawler, type RobotsSkip } from './gate-crawler.js';
export { GatedHttpClient, type HopGate } from './http-client.js';
export { gatePace, limiterPace, type Slot, type TakeSlot, type PaceOptions } from './pace.js';
