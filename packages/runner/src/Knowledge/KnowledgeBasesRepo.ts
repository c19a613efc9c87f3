/**
 * Knowledge bases, their documents and their ingestion jobs as the API reads and writes them. The
 * worker's side of jobs (claiming, planning, progress) is in `Ingestion`.
 *
 * A knowledge base's `status`, document and chunk counts are derived when it is read, from its
 * documents and jobs, so nothing can drift out of step with them.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { IngestionJobId, KbDocumentId, KnowledgeBaseId, TenantId } from "@voiceagent/domain/Ids"
import type { JsonObject } from "@voiceagent/domain/Json"
import {
  DocumentError,
  DocumentStatus,
  type FaqPair,
  IngestionError,
  IngestionJob,
  IngestionJobStatus,
  KbDocument,
  KbKeyTaken,
  KnowledgeBase,
  type KnowledgeBaseStatus,
  SourceType
} from "@voiceagent/domain/KnowledgeBases"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import * as Rows from "../Sql/Rows.js"
import { isUniqueViolation } from "../Sql/SqlErrors.js"
import { SearchTargetCache } from "./SearchTargetCache.js"

/** A knowledge base's columns, with the counts and flags `KB_COLUMNS` derives from its documents and jobs. */
export const KnowledgeBaseRow = Schema.Struct({
  id: KnowledgeBaseId,
  tenantId: TenantId,
  kbKey: Schema.String,
  kbName: Schema.String,
  description: Schema.String,
  retrievalScoreThreshold: Schema.Number,
  metadata: Rows.JsonObjectColumn,
  embedder: Schema.String,
  pendingEmbedder: Schema.NullOr(Schema.String),
  generation: Schema.Int,
  collection: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  documentCount: Schema.NonNegativeInt,
  chunkCount: Schema.NonNegativeInt,
  lastIngestedAt: Schema.NullOr(Schema.DateFromSelf),
  ingesting: Schema.Boolean,
  needsIngestion: Schema.Boolean
})
export type KnowledgeBaseRow = typeof KnowledgeBaseRow.Type

const KB_COLUMNS = `k.id, k.tenant_id, k.kb_key, k.kb_name, k.description, k.retrieval_score_threshold, k.metadata,
  k.embedder, k.pending_embedder, k.generation, k.collection, k.created_at, k.updated_at,
  (SELECT count(*) FROM kb_documents d WHERE d.kb_id = k.id AND d.status <> 'REMOVED') AS document_count,
  (SELECT coalesce(sum(d.chunk_count), 0) FROM kb_documents d WHERE d.kb_id = k.id AND d.status <> 'REMOVED')
    AS chunk_count,
  (SELECT max(j.finished_at) FROM kb_ingestion_jobs j
    WHERE j.kb_id = k.id AND j.status IN ('SUCCEEDED', 'COMPLETED_WITH_ERRORS')) AS last_ingested_at,
  EXISTS (SELECT 1 FROM kb_ingestion_jobs j WHERE j.kb_id = k.id AND j.status IN ('QUEUED', 'RUNNING')) AS ingesting,
  (k.pending_embedder IS NOT NULL OR EXISTS (SELECT 1 FROM kb_documents d
    WHERE d.kb_id = k.id AND d.status IN ('PENDING', 'REMOVED'))) AS needs_ingestion`

const statusOf = (row: KnowledgeBaseRow): KnowledgeBaseStatus =>
  row.ingesting
    ? "INGESTING"
    : row.needsIngestion
    ? "NEEDS_INGESTION"
    : row.documentCount === 0
    ? "EMPTY"
    : "READY"

export const toKnowledgeBase = (row: KnowledgeBaseRow): KnowledgeBase =>
  new KnowledgeBase({
    id: row.id,
    tenantId: row.tenantId,
    kbKey: row.kbKey,
    kbName: row.kbName,
    description: row.description,
    retrievalScoreThreshold: row.retrievalScoreThreshold,
    metadata: row.metadata,
    status: statusOf(row),
    documentCount: row.documentCount,
    chunkCount: row.chunkCount,
    embedder: row.embedder,
    pendingEmbedder: row.pendingEmbedder,
    lastIngestedAt: row.lastIngestedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, Rows.validated)

/** A stored FAQ pair: its shape (the rules for writing one are `FaqPair`'s). */
const FaqPairColumn = Schema.Struct({ question: Schema.String, answer: Schema.String })

export const DocumentRow = Schema.Struct({
  id: KbDocumentId,
  kbId: KnowledgeBaseId,
  tenantId: TenantId,
  sourceType: SourceType,
  title: Schema.NullOr(Schema.String),
  url: Schema.NullOr(Schema.String),
  fileName: Schema.NullOr(Schema.String),
  format: Schema.NullOr(Schema.String),
  sizeBytes: Schema.NullOr(Schema.NonNegativeInt),
  content: Schema.NullOr(Schema.String),
  faqs: Schema.NullOr(Schema.Array(FaqPairColumn)),
  contentHash: Schema.NullOr(Schema.String),
  status: DocumentStatus,
  ingestedHash: Schema.NullOr(Schema.String),
  ingestedEmbedder: Schema.NullOr(Schema.String),
  chunkCount: Schema.NonNegativeInt,
  lastError: Schema.NullOr(DocumentError),
  ingestedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type DocumentRow = typeof DocumentRow.Type

export const DOCUMENT_COLUMNS =
  `id, kb_id, tenant_id, source_type, title, url, file_name, format, size_bytes, content, faqs,
  content_hash, status, ingested_hash, ingested_embedder, chunk_count, last_error, ingested_at, created_at, updated_at`

export const toDocument = (row: DocumentRow): KbDocument =>
  new KbDocument({
    id: row.id,
    kbId: row.kbId,
    sourceType: row.sourceType,
    title: row.title,
    url: row.url,
    fileName: row.fileName,
    format: row.format,
    sizeBytes: row.sizeBytes,
    characters: row.content === null ? null : row.content.length,
    status: row.status,
    chunkCount: row.chunkCount,
    contentHash: row.contentHash,
    lastError: row.lastError,
    ingestedAt: row.ingestedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, Rows.validated)

export const JobRow = Schema.Struct({
  id: IngestionJobId,
  kbId: KnowledgeBaseId,
  tenantId: TenantId,
  status: IngestionJobStatus,
  fullReindex: Schema.Boolean,
  planned: Schema.Boolean,
  embedder: Schema.NullOr(Schema.String),
  targetCollection: Schema.NullOr(Schema.String),
  targetGeneration: Schema.NullOr(Schema.Int),
  chunksTotal: Schema.Int,
  chunksDone: Schema.Int,
  documentsTotal: Schema.Int,
  documentsDone: Schema.Int,
  documentsUnchanged: Schema.Int,
  documentsRemoved: Schema.Int,
  documentsFailed: Schema.Int,
  errors: Schema.Array(IngestionError),
  runs: Schema.Int,
  leaseOwner: Schema.NullOr(Schema.String),
  leaseUntil: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  startedAt: Schema.NullOr(Schema.DateFromSelf),
  finishedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type JobRow = typeof JobRow.Type

export const JOB_COLUMNS =
  `id, kb_id, tenant_id, status, full_reindex, planned, embedder, target_collection, target_generation,
  chunks_total, chunks_done, documents_total, documents_done, documents_unchanged, documents_removed, documents_failed,
  errors, runs, lease_owner, lease_until, created_at, started_at, finished_at`

export const toJob = (row: JobRow): IngestionJob =>
  new IngestionJob({
    jobId: row.id,
    kbId: row.kbId,
    status: row.status,
    full: row.fullReindex,
    embedder: row.embedder,
    progress: {
      chunksDone: row.chunksDone,
      chunksTotal: row.chunksTotal,
      documentsDone: row.documentsDone,
      documentsTotal: row.documentsTotal
    },
    documents: {
      ingested: row.documentsDone - row.documentsUnchanged - row.documentsRemoved - row.documentsFailed,
      unchanged: row.documentsUnchanged,
      removed: row.documentsRemoved,
      failed: row.documentsFailed
    },
    errors: row.errors,
    runs: row.runs,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt
  }, Rows.validated)

export const SearchTarget = Schema.Struct({
  id: KnowledgeBaseId,
  collection: Schema.String,
  embedder: Schema.String,
  threshold: Schema.Number,
  removedDocumentIds: Schema.Array(Schema.String)
})
export type SearchTarget = typeof SearchTarget.Type

const IdRow = Schema.Struct({ id: Schema.String })

export interface NewKnowledgeBase {
  readonly id: KnowledgeBaseId
  readonly tenantId: TenantId
  readonly kbKey: string
  readonly kbName: string
  readonly description: string
  readonly retrievalScoreThreshold: number
  readonly metadata: JsonObject
  readonly embedder: string
  readonly collection: string
}

export interface KnowledgeBaseChanges {
  readonly kbKey?: string | undefined
  readonly kbName?: string | undefined
  readonly description?: string | undefined
  readonly retrievalScoreThreshold?: number | undefined
  readonly metadata?: JsonObject | undefined
  readonly pendingEmbedder?: string | null | undefined
}

export interface NewDocument {
  readonly sourceType: SourceType
  readonly title: string | null
  readonly url: string | null
  readonly fileName: string | null
  readonly format: string | null
  readonly sizeBytes: number | null
  readonly content: string | null
  readonly faqs: ReadonlyArray<FaqPair> | null
  readonly contentHash: string | null
}

const keyTaken = (e: SqlError) =>
  isUniqueViolation(e, "knowledge_bases_key") ? Effect.fail(new KbKeyTaken()) : Effect.die(e)

const nowDate = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

export class KnowledgeBasesRepo extends Effect.Service<KnowledgeBasesRepo>()("Knowledge/KnowledgeBasesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const kbColumns = sql.literal(KB_COLUMNS)
    const documentColumns = sql.literal(DOCUMENT_COLUMNS)
    const jobColumns = sql.literal(JOB_COLUMNS)
    const targetCache = new SearchTargetCache()
    /** After a write that changes a knowledge base's search target has committed. */
    const forgetSearchTarget = (kbId: string) => Effect.sync(() => targetCache.forget(kbId))

    /** A knowledge base's documents or jobs, newest first, with their total. */
    const pageOf = <Row, I, A>(
      table: "kb_documents" | "kb_ingestion_jobs",
      columns: ReturnType<typeof sql.literal>,
      row: Schema.Schema<Row, I>,
      kbId: KnowledgeBaseId,
      page: PageRequest,
      to: (row: Row) => A
    ) =>
      Rows.page(
        row,
        sql`
          SELECT ${columns} FROM ${sql(table)} WHERE kb_id = ${kbId}
          ORDER BY id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*) AS total FROM ${sql(table)} WHERE kb_id = ${kbId}`
      ).pipe(Effect.map(({ items, total }) => ({ items: items.map(to), total })))

    const find = (tenantId: TenantId, id: KnowledgeBaseId) =>
      Rows.findOne(
        KnowledgeBaseRow,
        sql`SELECT ${kbColumns} FROM knowledge_bases k WHERE k.id = ${id} AND k.tenant_id = ${tenantId}`
      )
        .pipe(Effect.orDie)

    /** By id alone, for the worker (which has no tenant in hand). */
    const findById = (id: KnowledgeBaseId) =>
      Rows.findOne(KnowledgeBaseRow, sql`SELECT ${kbColumns} FROM knowledge_bases k WHERE k.id = ${id}`).pipe(
        Effect.orDie
      )

    const create = Effect.fn("KnowledgeBasesRepo.create")(
      function*(kb: NewKnowledgeBase) {
        const now = yield* nowDate
        yield* sql`
          INSERT INTO knowledge_bases (id, tenant_id, kb_key, kb_name, description, retrieval_score_threshold, metadata,
            embedder, collection, created_at, updated_at)
          VALUES (${kb.id}, ${kb.tenantId}, ${kb.kbKey}, ${kb.kbName}, ${kb.description}, ${kb.retrievalScoreThreshold},
            ${JSON.stringify(kb.metadata)}::jsonb, ${kb.embedder}, ${kb.collection}, ${now}, ${now})
        `.pipe(Effect.catchTag("SqlError", keyTaken))
        return yield* Effect.map(find(kb.tenantId, kb.id), Option.getOrThrow)
      }
    )

    const keyExists = (tenantId: TenantId, kbKey: string) =>
      Rows.findAll(IdRow, sql`SELECT id FROM knowledge_bases WHERE tenant_id = ${tenantId} AND kb_key = ${kbKey}`).pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    const list = (tenantId: TenantId, page: PageRequest) =>
      Rows.page(
        KnowledgeBaseRow,
        sql`
          SELECT ${kbColumns} FROM knowledge_bases k WHERE k.tenant_id = ${tenantId}
          ORDER BY k.id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*) AS total FROM knowledge_bases WHERE tenant_id = ${tenantId}`
      ).pipe(Effect.map(({ items, total }) => ({ items: items.map(toKnowledgeBase), total })))

    /** Applies the changes (metadata already merged by the caller); none when it does not exist. */
    const update = Effect.fn("KnowledgeBasesRepo.update")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, changes: KnowledgeBaseChanges) {
        const now = yield* nowDate
        const updated = yield* Rows.findAll(
          IdRow,
          sql`
          UPDATE knowledge_bases SET
            kb_key = coalesce(${changes.kbKey ?? null}, kb_key),
            kb_name = coalesce(${changes.kbName ?? null}, kb_name),
            description = coalesce(${changes.description ?? null}, description),
            retrieval_score_threshold = coalesce(${
            changes.retrievalScoreThreshold ?? null
          }::double precision, retrieval_score_threshold),
            metadata = coalesce(${
            changes.metadata === undefined ? null : JSON.stringify(changes.metadata)
          }::jsonb, metadata),
            pending_embedder = ${
            changes.pendingEmbedder === undefined ? sql.literal("pending_embedder") : sql`${changes.pendingEmbedder}`
          },
            updated_at = ${now}
          WHERE id = ${id} AND tenant_id = ${tenantId}
          RETURNING id
        `
        ).pipe(Effect.catchTag("SqlError", keyTaken))
        if (updated.length === 0) return Option.none<KnowledgeBaseRow>()
        yield* forgetSearchTarget(id)
        return yield* find(tenantId, id)
      }
    )

    const remove = (tenantId: TenantId, id: KnowledgeBaseId) =>
      Rows.findAll(IdRow, sql`DELETE FROM knowledge_bases WHERE id = ${id} AND tenant_id = ${tenantId} RETURNING id`)
        .pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.tap(forgetSearchTarget(id)),
          Effect.orDie
        )

    // --- documents ---------------------------------------------------------------------------

    /** Inserts every document or none; none when the knowledge base does not exist. */
    const addDocuments = Effect.fn("KnowledgeBasesRepo.addDocuments")(
      function*(tenantId: TenantId, kbId: KnowledgeBaseId, documents: ReadonlyArray<NewDocument>) {
        const now = yield* nowDate
        const kb = yield* Rows.findOne(
          IdRow,
          sql`
          SELECT id FROM knowledge_bases WHERE id = ${kbId} AND tenant_id = ${tenantId} FOR SHARE
        `
        )
        if (Option.isNone(kb)) return Option.none<ReadonlyArray<KbDocument>>()
        const rows: Array<DocumentRow> = []
        for (const d of documents) {
          const row = yield* Rows.single(
            DocumentRow,
            sql`
            INSERT INTO kb_documents (id, kb_id, tenant_id, source_type, title, url, file_name, format, size_bytes,
              content,
              faqs, content_hash, status, created_at, updated_at)
            VALUES (${uuidv7()}, ${kbId}, ${tenantId}, ${d.sourceType}, ${d.title}, ${d.url}, ${d.fileName},
              ${d.format},
              ${d.sizeBytes}, ${d.content}, ${d.faqs === null ? null : JSON.stringify(d.faqs)}::jsonb, ${d.contentHash},
              'PENDING', ${now}, ${now})
            RETURNING ${documentColumns}
          `
          )
          rows.push(row)
        }
        return Option.some(rows.map(toDocument))
      },
      sql.withTransaction,
      Effect.orDie
    )

    const listDocuments = (kbId: KnowledgeBaseId, page: PageRequest) =>
      pageOf("kb_documents", documentColumns, DocumentRow, kbId, page, toDocument)

    const findDocument = (kbId: KnowledgeBaseId, id: KbDocumentId) =>
      Rows.findOne(DocumentRow, sql`SELECT ${documentColumns} FROM kb_documents WHERE id = ${id} AND kb_id = ${kbId}`)
        .pipe(
          Effect.map(Option.map(toDocument)),
          Effect.orDie
        )

    /** Marks it REMOVED (idempotent); false when there is no such document. */
    const removeDocument = Effect.fn("KnowledgeBasesRepo.removeDocument")(
      function*(kbId: KnowledgeBaseId, id: KbDocumentId) {
        const now = yield* nowDate
        const rows = yield* Rows.findAll(
          IdRow,
          sql`
          UPDATE kb_documents SET status = 'REMOVED', updated_at = CASE WHEN status = 'REMOVED' THEN updated_at
            ELSE ${now} END
          WHERE id = ${id} AND kb_id = ${kbId}
          RETURNING id
        `
        )
        yield* forgetSearchTarget(kbId)
        return rows.length > 0
      },
      Effect.orDie
    )

    /** Documents queries leave out: removed, their chunks not yet purged. */
    const removedDocumentIds = (kbId: KnowledgeBaseId) =>
      Rows.findAll(IdRow, sql`SELECT id FROM kb_documents WHERE kb_id = ${kbId} AND status = 'REMOVED'`).pipe(
        Effect.map((rows) => rows.map((r) => r.id)),
        Effect.orDie
      )

    // --- jobs ----------------------------------------------------------------------------------

    /**
     * Queues a job, or answers the one already waiting (asking for `full` upgrades it). One
     * statement on the partial unique index, so concurrent requests get the same job.
     */
    const enqueueJob = Effect.fn("KnowledgeBasesRepo.enqueueJob")(
      function*(tenantId: TenantId, kbId: KnowledgeBaseId, full: boolean) {
        const now = yield* nowDate
        return yield* Rows.single(
          Schema.Struct({ id: IngestionJobId, status: IngestionJobStatus }),
          sql`
          INSERT INTO kb_ingestion_jobs (id, kb_id, tenant_id, status, full_reindex, created_at, updated_at)
          VALUES (${uuidv7()}, ${kbId}, ${tenantId}, 'QUEUED', ${full}, ${now}, ${now})
          ON CONFLICT (kb_id) WHERE status = 'QUEUED'
          DO UPDATE SET full_reindex = kb_ingestion_jobs.full_reindex OR EXCLUDED.full_reindex
          RETURNING id, status
        `
        )
      },
      Effect.orDie
    )

    const findJob = (kbId: KnowledgeBaseId, id: IngestionJobId) =>
      Rows.findOne(JobRow, sql`SELECT ${jobColumns} FROM kb_ingestion_jobs WHERE id = ${id} AND kb_id = ${kbId}`).pipe(
        Effect.map(Option.map(toJob)),
        Effect.orDie
      )

    const listJobs = (kbId: KnowledgeBaseId, page: PageRequest) =>
      pageOf("kb_ingestion_jobs", jobColumns, JobRow, kbId, page, toJob)

    /**
     * What a query needs of knowledge bases, in the order asked, for those that exist: the active
     * collection and its embedder, the threshold, and the removed documents to leave out.
     */
    const searchTargets = (tenantId: TenantId, kbIds: ReadonlyArray<string>) =>
      kbIds.length === 0
        ? Effect.succeed<ReadonlyArray<SearchTarget>>([])
        : Rows.findAll(
          SearchTarget,
          sql`
          SELECT k.id, k.collection, k.embedder, k.retrieval_score_threshold AS threshold,
            (SELECT coalesce(json_agg(d.id), '[]'::json) FROM kb_documents d
              WHERE d.kb_id = k.id AND d.status = 'REMOVED') AS removed_document_ids
          FROM knowledge_bases k WHERE k.tenant_id = ${tenantId} AND k.id IN ${sql.in(kbIds)}
        `
        ).pipe(
          Effect.map((rows) => kbIds.flatMap((id) => rows.filter((r) => r.id === id))),
          Effect.orDie
        )

    /**
     * One knowledge base's target, from the cache when this process read it within the last 2 s
     * (`SearchTargetCache`); `fresh` when it must be read (e.g. a cached collection was not found).
     */
    const searchTarget = (tenantId: TenantId, kbId: string, fresh = false) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const cached = fresh ? undefined : targetCache.find(tenantId, kbId, now)
        if (cached !== undefined) return Effect.succeed(Option.some(cached))
        const readIn = targetCache.generation
        return Effect.map(searchTargets(tenantId, [kbId]), ([target]) => {
          if (target === undefined) return Option.none<SearchTarget>()
          targetCache.keep(tenantId, target, now, readIn)
          return Option.some(target)
        })
      })

    return {
      find,
      findById,
      create,
      keyExists,
      list,
      update,
      remove,
      addDocuments,
      listDocuments,
      findDocument,
      removeDocument,
      removedDocumentIds,
      enqueueJob,
      findJob,
      listJobs,
      searchTargets,
      searchTarget,
      forgetSearchTarget
    } as const
  })
}) {}
