import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { CommsApi } from "@voiceagent/domain/CommsApi"
import type { KnowledgeBaseId, TenantId } from "@voiceagent/domain/Ids"
import { type JsonObject, mergePatch } from "@voiceagent/domain/Json"
import {
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
  QueryResult,
  UnknownEmbedder,
  UnsupportedDocumentType,
  UrlNotAllowed
} from "@voiceagent/domain/KnowledgeBases"
import { makePage } from "@voiceagent/domain/Pagination"
import { contentHash, faqContent } from "@voiceagent/runner/Knowledge/DocumentChunks"
import { Embedders } from "@voiceagent/runner/Knowledge/Embedders"
import { extractText, formatOfFileName } from "@voiceagent/runner/Knowledge/Extract"
import { Ingestion } from "@voiceagent/runner/Knowledge/Ingestion"
import { KnowledgeBasesRepo, type NewDocument, toKnowledgeBase } from "@voiceagent/runner/Knowledge/KnowledgeBasesRepo"
import { KnowledgeSettings } from "@voiceagent/runner/Knowledge/KnowledgeSettings"
import { Retrieval } from "@voiceagent/runner/Knowledge/Retrieval"
import { checkUrl } from "@voiceagent/runner/Knowledge/UrlFetcher"
import { collectionName, VectorStore } from "@voiceagent/runner/Ports/VectorStore"
import { fromDatabase } from "@voiceagent/runner/Sql/Rows"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { v7 as uuidv7 } from "uuid"
import { jsonAnswer } from "../Responses.js"

const storeUnavailable = (e: { readonly message: string }) =>
  Effect.fail(new KnowledgeStoreUnavailable({ details: { reason: e.message } }))

const queryAnswer = jsonAnswer(QueryResult)

export const KnowledgeBasesHttpLive = HttpApiBuilder.group(
  CommsApi,
  "knowledgeBases",
  (handlers) =>
    Effect.gen(function*() {
      const repo = yield* KnowledgeBasesRepo
      const store = yield* VectorStore
      const embedders = yield* Embedders
      const settings = yield* KnowledgeSettings
      const retrieval = yield* Retrieval
      const fs = yield* FileSystem.FileSystem

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
      const nudge = Effect.flatMap(
        Effect.serviceOption(Ingestion),
        Option.match({
          onNone: () => Effect.void,
          onSome: (ingestion) => ingestion.nudge
        })
      )

      return handlers
        .handle("createKnowledgeBase", ({ payload }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            const embedder = yield* offered(payload.embedder ?? embedders.default.id)
            if (yield* repo.keyExists(tenantId, payload.kbKey)) return yield* new KbKeyTaken()
            const id = uuidv7() as KnowledgeBaseId
            const collection = collectionName(tenantId, id, 1)
            yield* store.ensureCollection(collection).pipe(Effect.catchAll(storeUnavailable))
            // the record, or nothing: a collection whose record could not be written is dropped again
            const created = yield* repo.create({
              id,
              tenantId,
              kbKey: payload.kbKey,
              kbName: payload.kbName,
              description: payload.description ?? "",
              retrievalScoreThreshold: payload.retrievalScoreThreshold ?? settings.defaultScoreThreshold,
              metadata: payload.metadata ?? {},
              embedder,
              collection
            }).pipe(Effect.onError(() => store.dropCollection(collection).pipe(Effect.ignore)))
            return toKnowledgeBase(created)
          }))
        .handle("listKnowledgeBases", ({ urlParams }) =>
          Effect.flatMap(
            CurrentTenant,
            ({ tenantId }) =>
              Effect.map(repo.list(tenantId, urlParams), ({ items, total }) => makePage(items, total, urlParams))
          ))
        .handle(
          "getKnowledgeBase",
          ({ path }) =>
            Effect.flatMap(CurrentTenant, ({ tenantId }) => Effect.map(kbOf(tenantId, path.kbId), toKnowledgeBase))
        )
        .handle("updateKnowledgeBase", ({ path, payload }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            const current = yield* kbOf(tenantId, path.kbId)
            const embedder = payload.embedder === undefined ? undefined : yield* offered(payload.embedder)
            const updated = yield* repo.update(tenantId, path.kbId, {
              kbKey: payload.kbKey,
              kbName: payload.kbName,
              description: payload.description,
              retrievalScoreThreshold: payload.retrievalScoreThreshold,
              metadata: payload.metadata === undefined
                ? undefined
                : mergePatch(current.metadata, payload.metadata) as JsonObject,
              pendingEmbedder: embedder === undefined ? undefined : embedder === current.embedder ? null : embedder
            })
            return yield* Option.match(updated, {
              onNone: () => Effect.fail(new KnowledgeBaseNotFound()),
              onSome: (row) => Effect.succeed(toKnowledgeBase(row))
            })
          }))
        .handle("deleteKnowledgeBase", ({ path }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            const kb = yield* kbOf(tenantId, path.kbId)
            // the active collection, and the next generation's that an embedder switch may have begun
            yield* store.dropCollection(kb.collection).pipe(Effect.catchAll(storeUnavailable))
            yield* store.dropCollection(collectionName(tenantId, kb.id, kb.generation + 1)).pipe(
              Effect.catchAll(storeUnavailable)
            )
            if (!(yield* repo.remove(tenantId, kb.id))) return yield* new KnowledgeBaseNotFound()
          }))
        .handle("addSource", ({ path, payload }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            yield* kbOf(tenantId, path.kbId)
            const none = { title: null, url: null, fileName: null, format: null, sizeBytes: null, faqs: null }
            let document: NewDocument
            switch (payload.type) {
              case "TEXT":
                document = {
                  ...none,
                  sourceType: "TEXT",
                  title: payload.title,
                  content: payload.text,
                  contentHash: contentHash({ sourceType: "TEXT", content: payload.text, faqs: null })
                }
                break
              case "URL": {
                const url = yield* checkUrl(payload.url, settings.urlPolicy).pipe(
                  Effect.mapError((e) => new UrlNotAllowed({ message: e.message, details: { reason: e.reason } }))
                )
                // fetched by each ingestion job
                document = {
                  ...none,
                  sourceType: "URL",
                  title: payload.title ?? `${url.hostname}${url.pathname === "/" ? "" : url.pathname}`,
                  url: url.href,
                  content: null,
                  contentHash: null
                }
                break
              }
              case "FAQ": {
                const content = faqContent(payload.faqs)
                document = {
                  ...none,
                  sourceType: "FAQ",
                  title: payload.title ?? null,
                  faqs: payload.faqs,
                  content,
                  contentHash: contentHash({ sourceType: "FAQ", content, faqs: payload.faqs })
                }
                break
              }
            }
            const added = yield* repo.addDocuments(tenantId, path.kbId, [document])
            if (Option.isNone(added)) return yield* new KnowledgeBaseNotFound()
            return added.value[0]!
          }))
        .handle("uploadDocuments", ({ path, payload }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            yield* kbOf(tenantId, path.kbId)
            const files = payload.file
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
            const added = yield* repo.addDocuments(tenantId, path.kbId, documents)
            if (Option.isNone(added)) return yield* new KnowledgeBaseNotFound()
            return { documents: added.value }
          }))
        .handle("listDocuments", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            yield* kbOf(tenantId, path.kbId)
            const { items, total } = yield* repo.listDocuments(path.kbId, urlParams)
            return makePage(items, total, urlParams)
          }))
        .handle("getDocument", ({ path }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            yield* kbOf(tenantId, path.kbId)
            const found = yield* repo.findDocument(path.kbId, path.documentId)
            if (Option.isNone(found)) return yield* new KbDocumentNotFound()
            return found.value
          }))
        .handle("deleteDocument", ({ path }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            yield* kbOf(tenantId, path.kbId)
            if (!(yield* repo.removeDocument(path.kbId, path.documentId))) return yield* new KbDocumentNotFound()
          }))
        .handle("createIngestionJob", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            yield* kbOf(tenantId, path.kbId)
            const job = yield* repo.enqueueJob(tenantId, path.kbId, urlParams.full === "true")
            yield* nudge
            return new IngestionJobAccepted({ jobId: job.id, kbId: path.kbId, status: job.status })
          }))
        .handle("listIngestionJobs", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            yield* kbOf(tenantId, path.kbId)
            const { items, total } = yield* repo.listJobs(path.kbId, urlParams)
            return makePage(items, total, urlParams)
          }))
        .handle("getIngestionJob", ({ path }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            yield* kbOf(tenantId, path.kbId)
            const found = yield* repo.findJob(path.kbId, path.jobId)
            if (Option.isNone(found)) return yield* new IngestionJobNotFound()
            return found.value
          }))
        .handle("queryKnowledgeBase", ({ path, payload }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            const found = yield* repo.searchTarget(tenantId, path.kbId)
            if (Option.isNone(found)) return yield* new KnowledgeBaseNotFound()
            let target = found.value
            const topK = payload.topK ?? DEFAULT_TOP_K
            const items = yield* retrieval.search(target, payload.query, topK).pipe(
              // a cached target's collection replaced by another process's ingestion job: read it again, once
              Effect.catchTag("VectorStoreRefused", (e) =>
                Effect.gen(function*() {
                  const fresh = yield* repo.searchTarget(tenantId, path.kbId, true)
                  if (Option.isNone(fresh)) return yield* new KnowledgeBaseNotFound()
                  if (fresh.value.collection === target.collection) return yield* e
                  target = fresh.value
                  return yield* retrieval.search(target, payload.query, topK)
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
            // every field already typed: the payload decoded, the target read from our tables, the chunks built from
            // our store
            return queryAnswer(
              new QueryResult({
                kbId: target.id,
                query: payload.query,
                threshold: target.threshold,
                embedder: target.embedder,
                items
              }, fromDatabase)
            )
          }))
    })
)
