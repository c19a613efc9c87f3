/**
 * What the knowledge-base API does, as a service: the HTTP handlers call it, and so can users' tests
 * through the testing kit. A knowledge base's record and its vector collection are created and
 * dropped together; documents are stored as they come (text extracted, checked) and embedded by the
 * ingestion jobs queued here.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import type { IngestionJobId, KbDocumentId, KnowledgeBaseId, TenantId } from "@voiceagent/domain/Ids"
import { type JsonObject, mergePatch } from "@voiceagent/domain/Json"
import {
  type AddSourceRequest,
  type CreateKnowledgeBaseRequest,
  DEFAULT_TOP_K,
  DocumentTooLong,
  DocumentUnreadable,
  EmbedderUnavailable,
  IngestionJobAccepted,
  IngestionJobNotFound,
  KbDocumentNotFound,
  KbKeyTaken,
  KnowledgeBaseNotFound,
  KnowledgeStoreUnavailable,
  MAX_DOCUMENT_CHARS,
  MAX_UPLOAD_FILES,
  NoFilesUploaded,
  type QueryRequest,
  QueryResult,
  UnknownEmbedder,
  UnsupportedDocumentType,
  type UpdateKnowledgeBaseRequest,
  UrlNotAllowed
} from "@voiceagent/domain/KnowledgeBases"
import type { PageRequest } from "@voiceagent/domain/Pagination"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { v7 as uuidv7 } from "uuid"
import { collectionName, VectorStore } from "../Ports/VectorStore.js"
import { fromDatabase } from "../Sql/Rows.js"
import { contentHash, faqContent } from "./DocumentChunks.js"
import { Embedders } from "./Embedders.js"
import { extractText, formatOfFileName } from "./Extract.js"
import { Ingestion } from "./Ingestion.js"
import { KnowledgeBasesRepo, type NewDocument, toKnowledgeBase } from "./KnowledgeBasesRepo.js"
import { KnowledgeSettings } from "./KnowledgeSettings.js"
import { Retrieval } from "./Retrieval.js"
import { checkUrl } from "./UrlFetcher.js"

/** An uploaded file, as the multipart parser leaves it: its name and where its bytes are on disk. */
export interface UploadedFile {
  readonly name: string
  readonly path: string
}

const storeUnavailable = (e: { readonly message: string }) =>
  Effect.fail(new KnowledgeStoreUnavailable({ details: { reason: e.message } }))

export class KnowledgeBases extends Effect.Service<KnowledgeBases>()("Knowledge/KnowledgeBases", {
  effect: Effect.gen(function*() {
    const repo = yield* KnowledgeBasesRepo
    const store = yield* VectorStore
    const embedders = yield* Embedders
    const settings = yield* KnowledgeSettings
    const retrieval = yield* Retrieval
    const fs = yield* FileSystem.FileSystem
    // the ingestion worker runs on the runners: a comms service alone has none, and its jobs are found by polling
    const ingestion = yield* Effect.serviceOption(Ingestion)

    const kbOf = (tenantId: TenantId, id: KnowledgeBaseId) =>
      Effect.flatMap(
        repo.find(tenantId, id),
        Option.match({
          onNone: () => Effect.fail(new KnowledgeBaseNotFound()),
          onSome: Effect.succeed
        })
      )

    const offered = (embedder: string) =>
      Option.isSome(embedders.get(embedder))
        ? Effect.succeed(embedder)
        : Effect.fail(new UnknownEmbedder({ details: { embedder, offered: embedders.ids } }))

    /** Wakes the ingestion worker when it runs in this process; other runners find the job by polling. */
    const nudge = Option.match(ingestion, { onNone: () => Effect.void, onSome: (worker) => worker.nudge })

    /** Creates the record and its collection: both or neither. */
    const create = Effect.fn("KnowledgeBases.create")(
      function*(tenantId: TenantId, request: CreateKnowledgeBaseRequest) {
        const embedder = yield* offered(request.embedder ?? embedders.default.id)
        if (yield* repo.keyExists(tenantId, request.kbKey)) return yield* new KbKeyTaken()
        const id = uuidv7() as KnowledgeBaseId
        const collection = collectionName(tenantId, id, 1)
        yield* store.ensureCollection(collection).pipe(Effect.catchAll(storeUnavailable))
        // the record, or nothing: a collection whose record could not be written is dropped again
        const created = yield* repo.create({
          id,
          tenantId,
          kbKey: request.kbKey,
          kbName: request.kbName,
          description: request.description ?? "",
          retrievalScoreThreshold: request.retrievalScoreThreshold ?? settings.defaultScoreThreshold,
          metadata: request.metadata ?? {},
          embedder,
          collection
        }).pipe(Effect.onError(() => store.dropCollection(collection).pipe(Effect.ignore)))
        return toKnowledgeBase(created)
      }
    )

    const list = Effect.fn("KnowledgeBases.list")(function*(tenantId: TenantId, page: PageRequest) {
      return yield* repo.list(tenantId, page)
    })

    const get = Effect.fn("KnowledgeBases.get")(function*(tenantId: TenantId, id: KnowledgeBaseId) {
      return toKnowledgeBase(yield* kbOf(tenantId, id))
    })

    /** Changes the fields given; a new embedder waits as the pending one for the next ingestion job. */
    const update = Effect.fn("KnowledgeBases.update")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, patch: UpdateKnowledgeBaseRequest) {
        const current = yield* kbOf(tenantId, id)
        const embedder = patch.embedder === undefined ? undefined : yield* offered(patch.embedder)
        const updated = yield* repo.update(tenantId, id, {
          kbKey: patch.kbKey,
          kbName: patch.kbName,
          description: patch.description,
          retrievalScoreThreshold: patch.retrievalScoreThreshold,
          metadata: patch.metadata === undefined
            ? undefined
            : mergePatch(current.metadata, patch.metadata) as JsonObject,
          pendingEmbedder: embedder === undefined ? undefined : embedder === current.embedder ? null : embedder
        })
        if (Option.isNone(updated)) return yield* new KnowledgeBaseNotFound()
        return toKnowledgeBase(updated.value)
      }
    )

    /** Drops the collections, then the record (its documents and jobs with it). */
    const remove = Effect.fn("KnowledgeBases.remove")(function*(tenantId: TenantId, id: KnowledgeBaseId) {
      const kb = yield* kbOf(tenantId, id)
      // the active collection, and the next generation's that an embedder switch may have begun
      yield* store.dropCollection(kb.collection).pipe(Effect.catchAll(storeUnavailable))
      yield* store.dropCollection(collectionName(tenantId, kb.id, kb.generation + 1)).pipe(
        Effect.catchAll(storeUnavailable)
      )
      if (!(yield* repo.remove(tenantId, kb.id))) return yield* new KnowledgeBaseNotFound()
    })

    const documentOf = (source: AddSourceRequest) =>
      Effect.gen(function*() {
        const none = { title: null, url: null, fileName: null, format: null, sizeBytes: null, faqs: null }
        switch (source.type) {
          case "TEXT":
            return {
              ...none,
              sourceType: "TEXT",
              title: source.title,
              content: source.text,
              contentHash: contentHash({ sourceType: "TEXT", content: source.text, faqs: null })
            } satisfies NewDocument
          case "URL": {
            const url = yield* checkUrl(source.url, settings.urlPolicy).pipe(
              Effect.mapError((e) => new UrlNotAllowed({ message: e.message, details: { reason: e.reason } }))
            )
            // fetched by each ingestion job
            return {
              ...none,
              sourceType: "URL",
              title: source.title ?? `${url.hostname}${url.pathname === "/" ? "" : url.pathname}`,
              url: url.href,
              content: null,
              contentHash: null
            } satisfies NewDocument
          }
          case "FAQ": {
            const content = faqContent(source.faqs)
            return {
              ...none,
              sourceType: "FAQ",
              title: source.title ?? null,
              faqs: source.faqs,
              content,
              contentHash: contentHash({ sourceType: "FAQ", content, faqs: source.faqs })
            } satisfies NewDocument
          }
        }
      })

    /** Adds a text, URL or FAQ document (a URL is checked against the policy now, fetched by each job). */
    const addSource = Effect.fn("KnowledgeBases.addSource")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, source: AddSourceRequest) {
        yield* kbOf(tenantId, id)
        const document: NewDocument = yield* documentOf(source)
        const added = yield* repo.addDocuments(tenantId, id, [document])
        if (Option.isNone(added)) return yield* new KnowledgeBaseNotFound()
        return added.value[0]!
      }
    )

    /** One document per file, its text extracted and checked: all files stored, or none. */
    const upload = Effect.fn("KnowledgeBases.upload")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, files: ReadonlyArray<UploadedFile>) {
        yield* kbOf(tenantId, id)
        if (files.length === 0 || files.length > MAX_UPLOAD_FILES) return yield* new NoFilesUploaded()
        const documents: Array<NewDocument> = []
        for (const file of files) {
          const format = formatOfFileName(file.name)
          if (format === undefined) return yield* new UnsupportedDocumentType({ details: { fileName: file.name } })
          // a plain Uint8Array: pdf.js refuses Node's Buffer subclass
          const bytes = new Uint8Array(yield* fs.readFile(file.path).pipe(Effect.orDie))
          const content = yield* extractText(format, bytes).pipe(
            Effect.mapError((e) =>
              new DocumentUnreadable({
                message: `${file.name}: ${e.message}; nothing was stored`,
                details: { fileName: file.name, reason: e.code }
              })
            )
          )
          if (content.length > MAX_DOCUMENT_CHARS) {
            return yield* new DocumentTooLong({ details: { fileName: file.name, characters: content.length } })
          }
          documents.push({
            sourceType: "FILE",
            title: file.name.replace(/\.[^.]+$/, ""),
            url: null,
            fileName: file.name,
            format,
            sizeBytes: bytes.length,
            content,
            faqs: null,
            contentHash: contentHash({ sourceType: "FILE", content, faqs: null })
          })
        }
        const added = yield* repo.addDocuments(tenantId, id, documents)
        if (Option.isNone(added)) return yield* new KnowledgeBaseNotFound()
        return { documents: added.value }
      }
    )

    const listDocuments = Effect.fn("KnowledgeBases.listDocuments")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, page: PageRequest) {
        yield* kbOf(tenantId, id)
        return yield* repo.listDocuments(id, page)
      }
    )

    const getDocument = Effect.fn("KnowledgeBases.getDocument")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, documentId: KbDocumentId) {
        yield* kbOf(tenantId, id)
        const found = yield* repo.findDocument(id, documentId)
        if (Option.isNone(found)) return yield* new KbDocumentNotFound()
        return found.value
      }
    )

    /** Marks the document removed: queries leave it out at once, the next job deletes its chunks. */
    const removeDocument = Effect.fn("KnowledgeBases.removeDocument")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, documentId: KbDocumentId) {
        yield* kbOf(tenantId, id)
        if (!(yield* repo.removeDocument(id, documentId))) return yield* new KbDocumentNotFound()
      }
    )

    /** Queues an ingestion job (`full`: every document) and wakes this process's worker, if it has one. */
    const ingest = Effect.fn("KnowledgeBases.ingest")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, full: boolean) {
        yield* kbOf(tenantId, id)
        const job = yield* repo.enqueueJob(tenantId, id, full)
        yield* nudge
        return new IngestionJobAccepted({ jobId: job.id, kbId: id, status: job.status })
      }
    )

    const listJobs = Effect.fn("KnowledgeBases.listJobs")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, page: PageRequest) {
        yield* kbOf(tenantId, id)
        return yield* repo.listJobs(id, page)
      }
    )

    const getJob = Effect.fn("KnowledgeBases.getJob")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, jobId: IngestionJobId) {
        yield* kbOf(tenantId, id)
        const found = yield* repo.findJob(id, jobId)
        if (Option.isNone(found)) return yield* new IngestionJobNotFound()
        return found.value
      }
    )

    /** The chunks most like the query, above the knowledge base's threshold. */
    const query = Effect.fn("KnowledgeBases.query")(
      function*(tenantId: TenantId, id: KnowledgeBaseId, request: QueryRequest) {
        const found = yield* repo.searchTarget(tenantId, id)
        if (Option.isNone(found)) return yield* new KnowledgeBaseNotFound()
        let target = found.value
        const topK = request.topK ?? DEFAULT_TOP_K
        const items = yield* retrieval.search(target, request.query, topK).pipe(
          // a cached target's collection replaced by another process's ingestion job: read it again, once
          Effect.catchTag("VectorStoreRefused", (e) =>
            Effect.gen(function*() {
              const fresh = yield* repo.searchTarget(tenantId, id, true)
              if (Option.isNone(fresh)) return yield* new KnowledgeBaseNotFound()
              if (fresh.value.collection === target.collection) return yield* e
              target = fresh.value
              return yield* retrieval.search(target, request.query, topK)
            })),
          Effect.catchTags({
            VectorStoreUnavailable: storeUnavailable,
            VectorStoreRefused: storeUnavailable,
            EmbeddingFailed: (e) => Effect.fail(new EmbedderUnavailable({ details: { reason: e.message } })),
            EmbedderNotOffered: (e) =>
              Effect.fail(
                new EmbedderUnavailable({
                  message: `This knowledge base's embedder (${e.embedder}) is not offered by the platform now`
                })
              )
          })
        )
        // every field already typed: the request decoded, the target read from our tables, the chunks built
        // from our store
        return new QueryResult({
          kbId: target.id,
          query: request.query,
          threshold: target.threshold,
          embedder: target.embedder,
          items
        }, fromDatabase)
      }
    )

    return {
      create,
      list,
      get,
      update,
      remove,
      addSource,
      upload,
      listDocuments,
      getDocument,
      removeDocument,
      ingest,
      listJobs,
      getJob,
      query
    } as const
  }),
  dependencies: [KnowledgeBasesRepo.Default, NodeFileSystem.layer]
}) {}
