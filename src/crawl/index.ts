export type { DocumentTransport, TransportResult, TransportFetchOptions, Hop, CrawlGate } from './types.js';
export { HttpTransport, type HttpTransportOptions, type FetchingGate } from './http-transport.js';
export { CrawlJob, type CrawlJobOptions, type CrawlStats, type CrawlResult, type HostStats } from './crawl-job.js';
export { readUrlList, parseUrlLine, type InputUrl, type InvalidLine, type UrlList } from './url-list.js';
export { documentPath, conflictPath, resolveInside } from './document-path.js';
export { saveDocument, OutputWriteError, DocumentPlacementError, type SavedDocument } from './document-store.js';
export { retryAfterMs } from '../politeness/retry-after.js';
