/** Platform-wide knowledge-base settings (from configuration in the roles, fixed in tests). */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import { defaultUrlPolicy, type UrlPolicy } from "./UrlFetcher.js"

export interface IngestionOptions {
  /** Chunks embedded and upserted together; progress is recorded after each batch. */
  readonly batchSize: number
  /** Jobs one runner works on at once. */
  readonly concurrency: number
  /**
   * The pause after a look for jobs that found one; looks that find none double it up to
   * `maxIdleInterval`. A job queued in this process wakes the worker at once; one queued by another
   * process (cluster:local's comms service) is found within the current pause.
   */
  readonly pollInterval: Duration.DurationInput
  readonly maxIdleInterval: Duration.DurationInput
  /** A job whose worker stops renewing this lease is taken up by another worker. */
  readonly leaseDuration: Duration.DurationInput
  /** Who this worker is, in `lease_owner`; leases it held before a restart are released at start. */
  readonly owner: string
  /** Tries of a batch against an unavailable embedder or vector store, with exponential backoff from `retryBase`. */
  readonly retries: number
  readonly retryBase: Duration.DurationInput
}

export interface KnowledgeSettingsShape {
  /** retrievalScoreThreshold of knowledge bases created without one. */
  readonly defaultScoreThreshold: number
  readonly urlPolicy: UrlPolicy
  readonly ingestion: IngestionOptions
}

/**
 * 0.2: measured with the offline embedder on the shipped retrieval corpus, the expected passage of 52 of 54 questions
 * scores at least this, 19% of the other question/passage pairs do, and small talk almost never does
 * (`OfflineEmbedder.test.ts` holds it; docs/decisions/0028-offline-embedder-and-score-threshold.md).
 */
export const DEFAULT_SCORE_THRESHOLD = 0.2

export const defaultIngestionOptions: IngestionOptions = {
  batchSize: 64,
  concurrency: 2,
  pollInterval: "2 seconds",
  maxIdleInterval: "10 seconds",
  leaseDuration: "60 seconds",
  owner: "embedded",
  retries: 5,
  retryBase: "1 second"
}

export const defaultKnowledgeSettings: KnowledgeSettingsShape = {
  defaultScoreThreshold: DEFAULT_SCORE_THRESHOLD,
  urlPolicy: defaultUrlPolicy,
  ingestion: defaultIngestionOptions
}

export class KnowledgeSettings extends Context.Tag("Knowledge/Settings")<KnowledgeSettings, KnowledgeSettingsShape>() {
  static readonly layer = (settings: Partial<KnowledgeSettingsShape> = {}): Layer.Layer<KnowledgeSettings> =>
    Layer.succeed(KnowledgeSettings, { ...defaultKnowledgeSettings, ...settings })
}
