/**
 * Ingestion jobs, run by every runner as a work queue on PostgreSQL.
 *
 * - **Claim.** A worker takes the oldest job that is queued (its knowledge base having none
 *   running) or running with an expired lease, marks it `RUNNING` under its own lease and renews
 *   the lease while it works. Partial unique indexes allow one queued and one running job per
 *   knowledge base.
 * - **Plan, once.** URL documents are fetched again; every document becomes an item: `UPSERT`
 *   (new, changed, failed before, or every one when the job is full or switches embedder),
 *   `SKIP` (same text hash, same embedder) or `DELETE` (removed). The chunk total is fixed here.
 * - **Execute, resumably.** Chunks are embedded and upserted in batches under stable ids
 *   (`<documentId>:<index>`); after each batch the item's and the job's progress are written. A
 *   worker that dies loses at most the batch in flight; whoever resumes starts at the recorded
 *   chunk and upserts that batch again under the same ids, so every chunk ends up in the collection
 *   exactly once. Stale chunks beyond a changed document's new length are deleted.
 * - **Switch embedder.** When the knowledge base has a pending embedder, the job writes every
 *   document into the next generation's collection and, only if all succeeded, switches the
 *   knowledge base over and drops the old collection. Queries use the old one until then.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { type IngestionJobId, KbDocumentId } from "@voiceagent/domain/Ids"
import type { IngestionError, IngestionJobStatus } from "@voiceagent/domain/KnowledgeBases"
import { MAX_DOCUMENT_CHARS } from "@voiceagent/domain/KnowledgeBases"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type { Embedder, EmbeddingFailed } from "../Ports/Embedder.js"
import { type ChunkRecord, collectionName, VectorStore, type VectorStoreError } from "../Ports/VectorStore.js"
import * as Rows from "../Sql/Rows.js"
import { isUniqueViolation } from "../Sql/SqlErrors.js"
import { chunkId, chunksOf, contentHash, type DocumentText } from "./DocumentChunks.js"
import { Embedders } from "./Embedders.js"
import { extractText, formatOfContentType } from "./Extract.js"
import { DOCUMENT_COLUMNS, DocumentRow, JOB_COLUMNS, JobRow, KnowledgeBasesRepo } from "./KnowledgeBasesRepo.js"
import { type IngestionOptions, KnowledgeSettings } from "./KnowledgeSettings.js"
import { fetchUrl } from "./UrlFetcher.js"

/** Why a job stopped as a whole (the rest is per document). */
class JobAborted extends Data.TaggedError("JobAborted")<{ readonly code: string; readonly message: string }> {}

/** Another worker took the job over (this one was presumed dead). */
class LeaseLost extends Data.TaggedError("LeaseLost")<{}> {}

const ItemRow = Schema.Struct({
  documentId: KbDocumentId,
  position: Schema.Int,
  action: Schema.Literal("UPSERT", "DELETE", "SKIP"),
  contentHash: Schema.NullOr(Schema.String),
  chunkTotal: Schema.Int,
  chunksDone: Schema.Int,
  status: Schema.Literal("PENDING", "DONE", "FAILED")
})
type ItemRow = typeof ItemRow.Type

const IdRow = Schema.Struct({ id: Schema.String })

const documentText = (doc: DocumentRow): DocumentText => ({
  sourceType: doc.sourceType,
  content: doc.content ?? "",
  faqs: doc.faqs
})

const nowDate = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

export class Ingestion extends Effect.Service<Ingestion>()("Knowledge/Ingestion", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const store = yield* VectorStore
    const embedders = yield* Embedders
    const settings = yield* KnowledgeSettings
    const repo = yield* KnowledgeBasesRepo
    const options: IngestionOptions = settings.ingestion
    const leaseMillis = Duration.toMillis(Duration.decode(options.leaseDuration))
    const jobColumns = sql.literal(JOB_COLUMNS)
    const documentColumns = sql.literal(DOCUMENT_COLUMNS)
    const nudges = yield* Queue.sliding<void>(1)

    /** Retries what an outage explains (exponential backoff on the Clock), not what a retry cannot fix. */
    const withRetries = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.retry({
          schedule: Schedule.exponential(options.retryBase),
          times: options.retries,
          while: (e) =>
            e._tag === "VectorStoreUnavailable" ||
            (e._tag === "EmbeddingFailed" && (e as { retryable?: boolean }).retryable === true)
        })
      )

    // --- claiming --------------------------------------------------------------------------------

    const claim = Effect.gen(function*() {
      const now = yield* nowDate
      const until = new Date(now.getTime() + leaseMillis)
      return yield* Rows.findOne(
        JobRow,
        sql`
        WITH candidate AS (
          SELECT j.id AS candidate_id FROM kb_ingestion_jobs j
          WHERE (j.status = 'RUNNING' AND (j.lease_until IS NULL OR j.lease_until < ${now}))
             OR (j.status = 'QUEUED' AND NOT EXISTS (
                  SELECT 1 FROM kb_ingestion_jobs r WHERE r.kb_id = j.kb_id AND r.status = 'RUNNING'))
          ORDER BY (j.status = 'RUNNING') DESC, j.created_at, j.id
          LIMIT 1
          FOR UPDATE SKIP LOCKED
        )
        UPDATE kb_ingestion_jobs j SET status = 'RUNNING', lease_owner = ${options.owner}, lease_until = ${until},
          runs = j.runs + 1, started_at = coalesce(j.started_at, ${now}), updated_at = ${now}
        FROM candidate WHERE j.id = candidate.candidate_id
        RETURNING ${jobColumns}
      `.pipe(
          // two workers promoting two queued jobs of one knowledge base: the unique index refuses one
          Effect.catchTag(
            "SqlError",
            (e) => isUniqueViolation(e, "kb_ingestion_jobs_running_key") ? Effect.succeed([]) : Effect.fail(e)
          )
        )
      )
    })

    const renewLease = (jobId: IngestionJobId) =>
      Effect.gen(function*() {
        const now = yield* nowDate
        const rows = yield* Rows.findAll(
          IdRow,
          sql`
          UPDATE kb_ingestion_jobs SET lease_until = ${new Date(now.getTime() + leaseMillis)}
          WHERE id = ${jobId} AND status = 'RUNNING' AND lease_owner = ${options.owner}
          RETURNING id
        `
        )
        return rows.length > 0
      })

    /** Leases this worker held before it restarted: nobody else would take them up until they expire. */
    const releaseOwnLeases = sql`
      UPDATE kb_ingestion_jobs SET lease_until = NULL WHERE status = 'RUNNING' AND lease_owner = ${options.owner}
    `.pipe(Effect.orDie)

    // --- planning -------------------------------------------------------------------------------

    /** Fetches a URL document again; its new text and hash, or the reason it could not be read. */
    const refetch = (doc: DocumentRow) =>
      Effect.gen(function*() {
        const fetched = yield* fetchUrl(doc.url!, settings.urlPolicy)
        const format = formatOfContentType(fetched.contentType, fetched.finalUrl)
        if (format === undefined) {
          return yield* Effect.fail<{ code: string; message: string }>({
            code: "UNSUPPORTED_CONTENT_TYPE",
            message: `the page's content type ${
              fetched.contentType ?? "(none)"
            } is not text, HTML, CSV, Markdown or PDF`
          })
        }
        const content = yield* extractText(format, fetched.bytes)
        if (content.length > MAX_DOCUMENT_CHARS) {
          return yield* Effect.fail({
            code: "DOCUMENT_TOO_LONG",
            message: `the page has more than ${MAX_DOCUMENT_CHARS} characters of text`
          })
        }
        return { content, format, sizeBytes: fetched.bytes.length }
      }).pipe(
        Effect.catchTags({
          UrlNotAllowed: (e) => Effect.fail({ code: "URL_NOT_ALLOWED", message: e.message }),
          UrlFetchFailed: (e) => Effect.fail({ code: "FETCH_FAILED", message: e.message }),
          ExtractionFailed: (e) => Effect.fail({ code: e.code, message: e.message })
        }),
        Effect.either
      )

    const plan = (job: JobRow) =>
      Effect.gen(function*() {
        const kb = yield* repo.findById(job.kbId)
        if (Option.isNone(kb)) {
          return yield* new JobAborted({ code: "KNOWLEDGE_BASE_DELETED", message: "the knowledge base was deleted" })
        }
        const embedderId = kb.value.pendingEmbedder ?? kb.value.embedder
        const switching = embedderId !== kb.value.embedder
        const generation = switching ? kb.value.generation + 1 : kb.value.generation
        const target = switching ? collectionName(kb.value.tenantId, kb.value.id, generation) : kb.value.collection
        if (Option.isNone(embedders.get(embedderId))) {
          return yield* new JobAborted({
            code: "EMBEDDER_UNAVAILABLE",
            message: `this runner does not offer the embedder ${embedderId}`
          })
        }
        yield* withRetries(store.ensureCollection(target)).pipe(
          Effect.catchAll((e) => new JobAborted({ code: "VECTOR_STORE_UNAVAILABLE", message: e.message }))
        )

        const docs = yield* Rows.findAll(
          DocumentRow,
          sql`SELECT ${documentColumns} FROM kb_documents WHERE kb_id = ${job.kbId} ORDER BY id`
        )
        const now = yield* nowDate
        const fetchErrors = new Map<string, { code: string; message: string }>()
        for (const doc of docs) {
          if (doc.sourceType !== "URL" || doc.status === "REMOVED") continue
          const result = yield* refetch(doc)
          if (Either.isLeft(result)) {
            fetchErrors.set(doc.id, result.left)
            continue
          }
          const hash = contentHash({ sourceType: "URL", content: result.right.content, faqs: null })
          if (hash === doc.contentHash) continue
          yield* sql`
            UPDATE kb_documents SET content = ${result.right.content}, content_hash = ${hash},
              format = ${result.right.format},
              size_bytes = ${result.right.sizeBytes}, status = CASE WHEN status = 'REMOVED' THEN status ELSE 'PENDING'
                END,
              updated_at = ${now}
            WHERE id = ${doc.id}
          `
          Object.assign(doc, { content: result.right.content, contentHash: hash, status: "PENDING" })
        }

        const items: Array<ItemRow> = docs.map((doc, position) => {
          const base = { documentId: doc.id, position, contentHash: doc.contentHash, chunksDone: 0 }
          if (doc.status === "REMOVED") return { ...base, action: "DELETE", chunkTotal: 0, status: "PENDING" }
          if (fetchErrors.has(doc.id)) return { ...base, action: "UPSERT", chunkTotal: 0, status: "FAILED" }
          const unchanged = !job.fullReindex && !switching && doc.status === "INGESTED" &&
            doc.ingestedHash === doc.contentHash && doc.ingestedEmbedder === embedderId
          if (unchanged) return { ...base, action: "SKIP", chunkTotal: 0, status: "DONE" }
          return { ...base, action: "UPSERT", chunkTotal: chunksOf(documentText(doc)).length, status: "PENDING" }
        })
        const errors: Array<IngestionError> = [...fetchErrors].map(([documentId, e]) => ({
          documentId: documentId as KbDocumentId,
          code: e.code,
          message: e.message
        }))

        yield* Effect.gen(function*() {
          if (items.length > 0) {
            yield* sql`INSERT INTO kb_job_items ${
              sql.insert(items.map((i) => ({ jobId: job.id, ...i })))
            } ON CONFLICT DO NOTHING`
          }
          for (const [documentId, e] of fetchErrors) {
            yield* sql`
              UPDATE kb_documents SET status = 'FAILED', last_error = ${JSON.stringify(e)}::jsonb, updated_at = ${now}
              WHERE id = ${documentId}
            `
          }
          const skipped = items.filter((i) => i.action === "SKIP").length
          yield* sql`
            UPDATE kb_ingestion_jobs SET planned = true, embedder = ${embedderId}, target_collection = ${target},
              target_generation = ${generation},
              chunks_total = ${items.reduce((n, i) => n + i.chunkTotal, 0)},
              documents_total = ${items.length}, documents_unchanged = ${skipped},
              documents_done = ${skipped + fetchErrors.size}, documents_failed = ${fetchErrors.size},
              errors = ${JSON.stringify(errors)}::jsonb, updated_at = ${now}
            WHERE id = ${job.id}
          `
        }).pipe(sql.withTransaction)
        return yield* Rows.single(JobRow, sql`SELECT ${jobColumns} FROM kb_ingestion_jobs WHERE id = ${job.id}`)
      })

    // --- executing ------------------------------------------------------------------------------

    /** Marks a document's item failed, with the reason on the document and the job. */
    const failItem = (job: JobRow, documentId: KbDocumentId, code: string, message: string) =>
      Effect.gen(function*() {
        const now = yield* nowDate
        const error = { documentId, code, message }
        yield* sql`UPDATE kb_job_items SET status = 'FAILED' WHERE job_id = ${job.id} AND document_id = ${documentId}`
        yield* sql`
          UPDATE kb_documents SET status = CASE WHEN status = 'REMOVED' THEN status ELSE 'FAILED' END,
            last_error = ${JSON.stringify({ code, message })}::jsonb, updated_at = ${now}
          WHERE id = ${documentId}
        `
        yield* sql`
          UPDATE kb_ingestion_jobs SET documents_done = documents_done + 1, documents_failed = documents_failed + 1,
            errors = errors || ${JSON.stringify([error])}::jsonb, updated_at = ${now}
          WHERE id = ${job.id}
        `
      }).pipe(sql.withTransaction)

    const upsertItem = (job: JobRow, embedder: Embedder, switching: boolean, item: ItemRow) =>
      Effect.gen(function*() {
        const found = yield* Rows.findOne(
          DocumentRow,
          sql`SELECT ${documentColumns} FROM kb_documents WHERE id = ${item.documentId}`
        )
        const doc = Option.getOrUndefined(found)
        if (doc === undefined || doc.status === "REMOVED" || doc.contentHash !== item.contentHash) {
          // removed or replaced since the job was planned: the next job takes it up as it is now
          yield* sql`UPDATE kb_job_items SET status = 'DONE' WHERE job_id = ${job.id}
            AND document_id = ${item.documentId}`
          yield* sql`UPDATE kb_ingestion_jobs SET documents_done = documents_done + 1 WHERE id = ${job.id}`
          return
        }
        const chunks = chunksOf(documentText(doc))
        const target = job.targetCollection!
        const metadataBase = {
          documentId: doc.id,
          sourceType: doc.sourceType,
          ...(doc.title === null ? {} : { title: doc.title }),
          ...(doc.url === null ? {} : { url: doc.url }),
          ...(doc.fileName === null ? {} : { fileName: doc.fileName })
        }
        for (let start = item.chunksDone; start < chunks.length; start += options.batchSize) {
          const batch = chunks.slice(start, start + options.batchSize)
          const vectors = yield* withRetries(embedder.embed(batch))
          const records: Array<ChunkRecord> = batch.map((text, i) => ({
            id: chunkId(doc.id, start + i),
            embedding: vectors[i]!,
            text,
            metadata: { ...metadataBase, chunkIndex: start + i }
          }))
          yield* withRetries(store.upsert(target, records))
          const now = yield* nowDate
          const progressed = yield* Rows.findAll(
            IdRow,
            sql`
            WITH item AS (
              UPDATE kb_job_items SET chunks_done = ${start + batch.length}
              WHERE job_id = ${job.id} AND document_id = ${doc.id}
            )
            UPDATE kb_ingestion_jobs SET chunks_done = chunks_done + ${batch.length}, updated_at = ${now},
              lease_until = ${new Date(now.getTime() + leaseMillis)}
            WHERE id = ${job.id} AND lease_owner = ${options.owner} AND status = 'RUNNING'
            RETURNING id
          `
          )
          if (progressed.length === 0) return yield* new LeaseLost()
        }
        // a document that became shorter leaves chunks past its new end behind
        if (!switching && doc.ingestedHash !== null) {
          yield* withRetries(store.deleteDocumentChunks(target, doc.id, chunks.length))
        }
        const now = yield* nowDate
        yield* Effect.gen(function*() {
          yield* sql`
            UPDATE kb_documents SET status = 'INGESTED', ingested_hash = ${item.contentHash},
              ingested_embedder = ${embedder.id},
              chunk_count = ${chunks.length}, last_error = NULL, ingested_at = ${now}, updated_at = ${now}
            WHERE id = ${doc.id} AND status <> 'REMOVED'
          `
          yield* sql`UPDATE kb_job_items SET status = 'DONE' WHERE job_id = ${job.id} AND document_id = ${doc.id}`
          yield* sql`UPDATE kb_ingestion_jobs SET documents_done = documents_done + 1, updated_at = ${now}
            WHERE id = ${job.id}`
        }).pipe(sql.withTransaction)
      })

    const deleteItem = (job: JobRow, switching: boolean, item: ItemRow) =>
      Effect.gen(function*() {
        // a new collection never held the removed document's chunks
        if (!switching) yield* withRetries(store.deleteDocumentChunks(job.targetCollection!, item.documentId))
        const now = yield* nowDate
        yield* Effect.gen(function*() {
          yield* sql`DELETE FROM kb_documents WHERE id = ${item.documentId} AND status = 'REMOVED'`
          yield* sql`UPDATE kb_job_items SET status = 'DONE' WHERE job_id = ${job.id}
            AND document_id = ${item.documentId}`
          yield* sql`
            UPDATE kb_ingestion_jobs SET documents_done = documents_done + 1, documents_removed = documents_removed + 1,
              updated_at = ${now}
            WHERE id = ${job.id}
          `
        }).pipe(sql.withTransaction)
        yield* repo.forgetSearchTarget(job.kbId)
      })

    const finish = (job: JobRow, switching: boolean) =>
      Effect.gen(function*() {
        const found = yield* Rows.findOne(JobRow, sql`SELECT ${jobColumns} FROM kb_ingestion_jobs WHERE id = ${job.id}`)
        if (Option.isNone(found)) return
        const current = found.value
        const { total: attempted } = yield* Rows.single(
          Rows.Count,
          sql`
          SELECT count(*) AS total FROM kb_job_items WHERE job_id = ${job.id} AND action <> 'SKIP'
        `
        )
        const failed = current.documentsFailed
        const status: IngestionJobStatus = failed === 0
          ? "SUCCEEDED"
          : failed >= attempted || switching
          ? "FAILED"
          : "COMPLETED_WITH_ERRORS"
        const now = yield* nowDate
        const kb = Option.getOrUndefined(
          yield* Rows.findOne(
            Schema.Struct({ collection: Schema.String }),
            sql`SELECT collection FROM knowledge_bases WHERE id = ${job.kbId}`
          )
        )
        yield* Effect.gen(function*() {
          if (switching && status === "SUCCEEDED") {
            yield* sql`
              UPDATE knowledge_bases SET embedder = ${job.embedder}, collection = ${job.targetCollection},
                generation = ${job.targetGeneration},
                pending_embedder = CASE WHEN pending_embedder = ${job.embedder} THEN NULL ELSE pending_embedder END,
                updated_at = ${now}
              WHERE id = ${job.kbId}
            `
          }
          const switchError = switching && status === "FAILED" && failed > 0
            ? [{
              documentId: null,
              code: "EMBEDDER_SWITCH_INCOMPLETE",
              message: "some documents failed; the knowledge base keeps its current embedder"
            }]
            : []
          yield* sql`
            UPDATE kb_ingestion_jobs SET status = ${status}, finished_at = ${now}, updated_at = ${now},
              lease_owner = NULL, lease_until = NULL, errors = errors || ${JSON.stringify(switchError)}::jsonb
            WHERE id = ${job.id}
          `
        }).pipe(sql.withTransaction)
        if (switching && status === "SUCCEEDED") yield* repo.forgetSearchTarget(job.kbId)
        if (switching && status === "SUCCEEDED" && kb !== undefined && kb.collection !== job.targetCollection) {
          yield* store.dropCollection(kb.collection).pipe(
            Effect.catchAll((e) => Effect.logWarning(`could not drop the replaced collection ${kb.collection}`, e))
          )
        }
      })

    const abort = (job: JobRow, reason: JobAborted) =>
      Effect.gen(function*() {
        const now = yield* nowDate
        yield* sql`
          UPDATE kb_ingestion_jobs SET status = 'FAILED', finished_at = ${now}, updated_at = ${now},
            lease_owner = NULL, lease_until = NULL,
            errors = errors || ${
          JSON.stringify([{ documentId: null, code: reason.code, message: reason.message }])
        }::jsonb
          WHERE id = ${job.id}
        `
      })

    /** Runs a claimed job to its end (or until its lease is lost). */
    const run = (claimed: JobRow) =>
      Effect.gen(function*() {
        const job = claimed.planned ? claimed : yield* plan(claimed)
        const embedder = embedders.get(job.embedder!)
        if (Option.isNone(embedder)) {
          return yield* new JobAborted({
            code: "EMBEDDER_UNAVAILABLE",
            message: `this runner does not offer the embedder ${job.embedder}`
          })
        }
        const kb = Option.getOrUndefined(
          yield* Rows.findOne(
            Schema.Struct({ generation: Schema.Int }),
            sql`SELECT generation FROM knowledge_bases WHERE id = ${job.kbId}`
          )
        )
        if (kb === undefined) {
          return yield* new JobAborted({ code: "KNOWLEDGE_BASE_DELETED", message: "the knowledge base was deleted" })
        }
        const switching = job.targetGeneration !== kb.generation
        const items = yield* Rows.findAll(
          ItemRow,
          sql`
          SELECT document_id, position, action, content_hash, chunk_total, chunks_done, status FROM kb_job_items
          WHERE job_id = ${job.id} AND status = 'PENDING' ORDER BY position
        `
        )
        for (const item of items) {
          const step: Effect.Effect<void, SqlError | VectorStoreError | EmbeddingFailed | LeaseLost> =
            item.action === "DELETE"
              ? deleteItem(job, switching, item)
              : upsertItem(job, embedder.value, switching, item)
          yield* step.pipe(
            Effect.catchTags({
              EmbeddingFailed: (e) =>
                e.retryable
                  ? Effect.fail(new JobAborted({ code: "EMBEDDER_UNAVAILABLE", message: e.message }))
                  : failItem(job, item.documentId, "EMBEDDING_FAILED", e.message),
              VectorStoreRefused: (e) => failItem(job, item.documentId, "VECTOR_STORE_REFUSED", e.message),
              VectorStoreUnavailable: (e) =>
                Effect.fail(new JobAborted({ code: "VECTOR_STORE_UNAVAILABLE", message: e.message }))
            })
          )
        }
        yield* finish(job, switching)
      }).pipe(
        Effect.catchTags({
          JobAborted: (e) => abort(claimed, e),
          LeaseLost: () => Effect.logWarning(`lost the lease of ingestion job ${claimed.id}; another worker has it`)
        })
      )

    /** Runs a job while a fiber keeps its lease alive. */
    const runLeased = Effect.fn("Ingestion.run")(
      function*(job: JobRow) {
        const keepAlive = yield* renewLease(job.id).pipe(
          Effect.orDie,
          Effect.repeat(Schedule.spaced(Duration.millis(Math.max(1, Math.floor(leaseMillis / 3))))),
          Effect.fork
        )
        yield* run(job).pipe(Effect.ensuring(Fiber.interrupt(keepAlive)))
      },
      (effect, job) => Effect.annotateLogs(effect, { ingestionJob: job.id, knowledgeBase: job.kbId }),
      Effect.catchAllCause((cause) =>
        Effect.logError("ingestion job failed unexpectedly; it resumes when its lease expires", cause)
      )
    )

    /**
     * The worker: takes jobs while there are any, up to `concurrency` at once, then sleeps until a
     * job is queued in this process or the pause passes: `pollInterval` after a look that found a
     * job, doubling (up to `maxIdleInterval`) while looks find none. Idle, it asks the database
     * every `maxIdleInterval` (was every `pollInterval`, 2 s: a quarter of an idle platform's
     * statements).
     */
    const worker = Effect.gen(function*() {
      yield* releaseOwnLeases
      const permits = yield* Effect.makeSemaphore(options.concurrency)
      const min = Duration.toMillis(Duration.decode(options.pollInterval))
      const max = Math.max(min, Duration.toMillis(Duration.decode(options.maxIdleInterval)))
      let pause = min
      const loop: Effect.Effect<never, never, never> = Effect.gen(function*() {
        yield* permits.take(1)
        const job = yield* claim.pipe(
          Effect.catchAllCause((cause) =>
            Effect.as(Effect.logWarning("could not claim an ingestion job", cause), Option.none())
          )
        )
        if (Option.isSome(job)) {
          pause = min
          yield* runLeased(job.value).pipe(Effect.ensuring(permits.release(1)), Effect.forkScoped)
          return
        }
        yield* permits.release(1)
        const nudged = yield* Effect.raceFirst(
          Effect.as(Queue.take(nudges), true),
          Effect.as(Effect.sleep(pause), false)
        )
        pause = nudged ? min : Math.min(max, pause * 2)
      }).pipe(Effect.forever) as never
      return yield* loop
    })

    /** Wakes this process's worker (a job was queued here). */
    const nudge = Queue.offer(nudges, undefined).pipe(Effect.asVoid)

    return { worker, nudge, claim, run: runLeased } as const
  }),
  dependencies: [KnowledgeBasesRepo.Default]
}) {}
