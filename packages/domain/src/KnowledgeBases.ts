/**
 * Knowledge bases: the record, the documents added to it (text, a URL, FAQ pairs, uploaded files),
 * ingestion jobs, retrieval queries, and their errors. A knowledge base's vectors live in its own
 * Chroma collection; what the API returns lives in PostgreSQL.
 */
import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { IngestionJobId, KbDocumentId, KnowledgeBaseId, TenantId } from "./Ids.js"
import { JsonObjectSchema } from "./Json.js"
import {
  KB_KEY_PATTERN,
  MAX_DOCUMENT_CHARS,
  MAX_FAQ_ANSWER,
  MAX_FAQ_PAIRS,
  MAX_FAQ_QUESTION,
  MAX_KB_DESCRIPTION,
  MAX_KB_NAME,
  MAX_QUERY_CHARS,
  MAX_TITLE,
  MAX_TOP_K,
  MAX_UPLOAD_FILES,
  MAX_URL_LENGTH,
  UPLOAD_EXTENSIONS
} from "./Limits.js"
import { Timestamp } from "./Timestamp.js"

// ---------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------

// in Limits.ts (no imports: the web dashboard's forms import them too)
export {
  DEFAULT_TOP_K,
  KB_KEY_PATTERN,
  MAX_AGENT_KNOWLEDGE_BASES,
  MAX_DOCUMENT_CHARS,
  MAX_FAQ_ANSWER,
  MAX_FAQ_PAIRS,
  MAX_FAQ_QUESTION,
  MAX_KB_DESCRIPTION,
  MAX_KB_NAME,
  MAX_QUERY_CHARS,
  MAX_TITLE,
  MAX_TOP_K,
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_FILES,
  MAX_URL_LENGTH,
  UPLOAD_EXTENSIONS
} from "./Limits.js"

const trimmedText = (max: number, label: string) =>
  Schema.Trim.pipe(
    Schema.filter((s) => s.length >= 1 && s.length <= max, { message: () => `${label} must be 1 to ${max} characters` })
  )

// ---------------------------------------------------------------------------
// Knowledge bases
// ---------------------------------------------------------------------------

export const KbKey = Schema.String.pipe(
  Schema.filter((s) => KB_KEY_PATTERN.test(s), {
    message: () =>
      "kbKey must be 2 to 64 characters of lowercase letters, digits, '-' and '_', starting with a letter or digit"
  }),
  Schema.annotations({
    description: "Unique within the tenant; pattern ^[a-z0-9][a-z0-9_-]{1,63}$",
    examples: ["product-faq"]
  })
)

export const ScoreThreshold = Schema.Number.pipe(
  Schema.filter((n) => Number.isFinite(n) && n >= 0 && n <= 1, {
    message: () => "retrievalScoreThreshold must be a number from 0 to 1"
  }),
  Schema.annotations({ jsonSchema: { type: "number", minimum: 0, maximum: 1 } })
)

const EmbedderName = Schema.String.pipe(
  Schema.filter((s) => s.length >= 1 && s.length <= 200, { message: () => "embedder must be 1 to 200 characters" }),
  Schema.annotations({
    description: "An embedder this platform offers, e.g. offline-hash-v1 or openai:text-embedding-3-small"
  })
)

export class CreateKnowledgeBaseRequest extends Schema.Class<CreateKnowledgeBaseRequest>("CreateKnowledgeBaseRequest")({
  kbKey: KbKey,
  kbName: trimmedText(MAX_KB_NAME, "kbName"),
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(MAX_KB_DESCRIPTION, {
    message: () => `description must be at most ${MAX_KB_DESCRIPTION} characters`
  }))),
  retrievalScoreThreshold: Schema.optional(ScoreThreshold),
  metadata: Schema.optional(JsonObjectSchema()),
  embedder: Schema.optional(EmbedderName)
}) {}

export class UpdateKnowledgeBaseRequest extends Schema.Class<UpdateKnowledgeBaseRequest>("UpdateKnowledgeBaseRequest")({
  kbKey: Schema.optional(KbKey),
  kbName: Schema.optional(trimmedText(MAX_KB_NAME, "kbName")),
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(MAX_KB_DESCRIPTION, {
    message: () => `description must be at most ${MAX_KB_DESCRIPTION} characters`
  }))),
  retrievalScoreThreshold: Schema.optional(ScoreThreshold),
  metadata: Schema.optional(JsonObjectSchema()).annotations({
    description: "Merged into the stored metadata (RFC 7396: null removes a key)"
  }),
  embedder: Schema.optional(EmbedderName).annotations({
    description: "Another embedder takes effect once an ingestion job has re-embedded every document"
  })
}) {}

export const KnowledgeBaseStatus = Schema.Literal("EMPTY", "NEEDS_INGESTION", "INGESTING", "READY").annotations({
  description: "EMPTY: no documents; NEEDS_INGESTION: documents added, changed or removed since the last ingestion; " +
    "INGESTING: a job is queued or running; READY: the collection holds every document as it is"
})
export type KnowledgeBaseStatus = typeof KnowledgeBaseStatus.Type

export class KnowledgeBase extends Schema.Class<KnowledgeBase>("KnowledgeBase")({
  id: KnowledgeBaseId,
  tenantId: TenantId,
  kbKey: Schema.String,
  kbName: Schema.String,
  description: Schema.String,
  retrievalScoreThreshold: Schema.Number,
  metadata: JsonObjectSchema(),
  status: KnowledgeBaseStatus,
  documentCount: Schema.Int,
  chunkCount: Schema.Int.annotations({ description: "Chunks in the collection from ingested documents" }),
  embedder: Schema.String.annotations({ description: "The embedder the collection's vectors were made with" }),
  pendingEmbedder: Schema.NullOr(Schema.String).annotations({
    description: "An embedder asked for; it replaces embedder when an ingestion job has re-embedded everything"
  }),
  lastIngestedAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

// ---------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------

export const SourceType = Schema.Literal("TEXT", "URL", "FAQ", "FILE")
export type SourceType = typeof SourceType.Type

export const DocumentStatus = Schema.Literal("PENDING", "INGESTED", "FAILED", "REMOVED")
export type DocumentStatus = typeof DocumentStatus.Type

export const FaqPair = Schema.Struct({
  question: trimmedText(MAX_FAQ_QUESTION, "question"),
  answer: trimmedText(MAX_FAQ_ANSWER, "answer")
})
export type FaqPair = typeof FaqPair.Type

const DocumentText = Schema.String.pipe(
  Schema.filter((s) => s.trim().length >= 1 && s.length <= MAX_DOCUMENT_CHARS, {
    message: () => `text must be 1 to ${MAX_DOCUMENT_CHARS} characters and not blank`
  })
)

const SourceUrl = Schema.String.pipe(
  Schema.filter((s) => s.length >= 1 && s.length <= MAX_URL_LENGTH, {
    message: () => `url must be 1 to ${MAX_URL_LENGTH} characters`
  })
)

export const TextSource = Schema.Struct({
  type: Schema.Literal("TEXT"),
  title: trimmedText(MAX_TITLE, "title"),
  text: DocumentText
}).annotations({ identifier: "TextSource" })

export const UrlSource = Schema.Struct({
  type: Schema.Literal("URL"),
  url: SourceUrl.annotations({
    description: "http or https; fetched by each ingestion job. Private and loopback addresses are refused unless " +
      "KB_URL_ALLOWLIST names them"
  }),
  title: Schema.optional(trimmedText(MAX_TITLE, "title"))
}).annotations({ identifier: "UrlSource" })

export const FaqSource = Schema.Struct({
  type: Schema.Literal("FAQ"),
  title: Schema.optional(trimmedText(MAX_TITLE, "title")),
  faqs: Schema.Array(FaqPair).pipe(
    Schema.filter((a) => a.length >= 1 && a.length <= MAX_FAQ_PAIRS, {
      message: () => `faqs must hold 1 to ${MAX_FAQ_PAIRS} pairs`
    })
  )
}).annotations({ identifier: "FaqSource", description: "Each pair becomes its own chunk" })

export const AddSourceRequest = Schema.Union(TextSource, UrlSource, FaqSource).annotations({
  identifier: "AddSourceRequest"
})
export type AddSourceRequest = typeof AddSourceRequest.Type

export const DocumentError = Schema.Struct({ code: Schema.String, message: Schema.String })

export class KbDocument extends Schema.Class<KbDocument>("KbDocument")({
  id: KbDocumentId,
  kbId: KnowledgeBaseId,
  sourceType: SourceType,
  title: Schema.NullOr(Schema.String),
  url: Schema.NullOr(Schema.String),
  fileName: Schema.NullOr(Schema.String),
  format: Schema.NullOr(Schema.String).annotations({
    description: "txt, md, csv, html or pdf (files and fetched pages)"
  }),
  sizeBytes: Schema.NullOr(Schema.Int).annotations({ description: "Uploaded or fetched bytes" }),
  characters: Schema.NullOr(Schema.Int).annotations({
    description: "Length of the text that is chunked; null for a URL not fetched yet"
  }),
  status: DocumentStatus,
  chunkCount: Schema.Int,
  contentHash: Schema.NullOr(Schema.String).annotations({
    description: "SHA-256 of the text; unchanged text is not ingested again"
  }),
  lastError: Schema.NullOr(DocumentError),
  ingestedAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export class UploadResult extends Schema.Class<UploadResult>("UploadResult")({
  documents: Schema.Array(KbDocument)
}) {}

// ---------------------------------------------------------------------------
// Ingestion jobs
// ---------------------------------------------------------------------------

export const IngestionJobStatus = Schema.Literal("QUEUED", "RUNNING", "SUCCEEDED", "COMPLETED_WITH_ERRORS", "FAILED")
export type IngestionJobStatus = typeof IngestionJobStatus.Type

export const IngestionJobQuery = Schema.Struct({
  full: Schema.optional(Schema.Literal("true", "false")).annotations({
    description: "true: embed every document again, changed or not"
  })
})

export class IngestionJobAccepted extends Schema.Class<IngestionJobAccepted>("IngestionJobAccepted")({
  jobId: IngestionJobId,
  kbId: KnowledgeBaseId,
  status: IngestionJobStatus
}) {}

export const IngestionError = Schema.Struct({
  documentId: Schema.NullOr(KbDocumentId),
  code: Schema.String,
  message: Schema.String
})
export type IngestionError = typeof IngestionError.Type

export class IngestionJob extends Schema.Class<IngestionJob>("IngestionJob")({
  jobId: IngestionJobId,
  kbId: KnowledgeBaseId,
  status: IngestionJobStatus,
  full: Schema.Boolean,
  embedder: Schema.NullOr(Schema.String).annotations({ description: "Fixed when the job starts" }),
  progress: Schema.Struct({
    chunksDone: Schema.Int,
    chunksTotal: Schema.Int,
    documentsDone: Schema.Int,
    documentsTotal: Schema.Int
  }),
  documents: Schema.Struct({
    ingested: Schema.Int.annotations({ description: "New or changed documents embedded" }),
    unchanged: Schema.Int.annotations({ description: "Skipped: same text, same embedder" }),
    removed: Schema.Int.annotations({ description: "Removed documents whose chunks left the collection" }),
    failed: Schema.Int
  }),
  errors: Schema.Array(IngestionError),
  runs: Schema.Int.annotations({ description: "Times a runner took the job up; above 1 it was resumed" }),
  createdAt: Timestamp,
  startedAt: Schema.NullOr(Timestamp),
  finishedAt: Schema.NullOr(Timestamp)
}) {}

// ---------------------------------------------------------------------------
// Query
// ---------------------------------------------------------------------------

export class QueryRequest extends Schema.Class<QueryRequest>("QueryRequest")({
  query: trimmedText(MAX_QUERY_CHARS, "query"),
  topK: Schema.optional(Schema.Int.pipe(
    Schema.filter((n) => n >= 1 && n <= MAX_TOP_K, { message: () => `topK must be an integer from 1 to ${MAX_TOP_K}` })
  ))
}) {}

export class RetrievedChunk extends Schema.Class<RetrievedChunk>("RetrievedChunk")({
  chunkId: Schema.String,
  score: Schema.Number.annotations({ description: "Cosine similarity (1 − cosine distance)" }),
  text: Schema.String,
  documentId: KbDocumentId,
  chunkIndex: Schema.Int,
  source: Schema.Struct({
    type: SourceType,
    title: Schema.NullOr(Schema.String),
    url: Schema.NullOr(Schema.String),
    fileName: Schema.NullOr(Schema.String)
  })
}) {}

export class QueryResult extends Schema.Class<QueryResult>("QueryResult")({
  kbId: KnowledgeBaseId,
  query: Schema.String,
  threshold: Schema.Number,
  embedder: Schema.String,
  items: Schema.Array(RetrievedChunk).annotations({ description: "Best first; only scores at or above threshold" })
}) {}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

export class KnowledgeBaseNotFound extends Schema.TaggedError<KnowledgeBaseNotFound>()(
  "KnowledgeBaseNotFound",
  errorFields("Knowledge base not found")
) {
  static readonly http: HttpError<KnowledgeBaseNotFound> = httpError(this, {
    status: 404,
    code: "KNOWLEDGE_BASE_NOT_FOUND"
  })
}

export class KbKeyTaken extends Schema.TaggedError<KbKeyTaken>()(
  "KbKeyTaken",
  errorFields("A knowledge base with this kbKey exists already")
) {
  static readonly http: HttpError<KbKeyTaken> = httpError(this, { status: 409, code: "KB_KEY_TAKEN" })
}

export class KbDocumentNotFound extends Schema.TaggedError<KbDocumentNotFound>()(
  "KbDocumentNotFound",
  errorFields("Document not found")
) {
  static readonly http: HttpError<KbDocumentNotFound> = httpError(this, { status: 404, code: "DOCUMENT_NOT_FOUND" })
}

export class IngestionJobNotFound extends Schema.TaggedError<IngestionJobNotFound>()(
  "IngestionJobNotFound",
  errorFields("Ingestion job not found")
) {
  static readonly http: HttpError<IngestionJobNotFound> = httpError(this, {
    status: 404,
    code: "INGESTION_JOB_NOT_FOUND"
  })
}

export class UrlNotAllowed extends Schema.TaggedError<UrlNotAllowed>()(
  "UrlNotAllowed",
  errorFields("This URL cannot be fetched")
) {
  static readonly http: HttpError<UrlNotAllowed> = httpError(this, { status: 400, code: "URL_NOT_ALLOWED" })
}

export class UnsupportedDocumentType extends Schema.TaggedError<UnsupportedDocumentType>()(
  "UnsupportedDocumentType",
  errorFields(`Only ${UPLOAD_EXTENSIONS.join(", ")} files can be uploaded; nothing was stored`)
) {
  static readonly http: HttpError<UnsupportedDocumentType> = httpError(this, {
    status: 415,
    code: "UNSUPPORTED_DOCUMENT_TYPE"
  })
}

export class DocumentUnreadable extends Schema.TaggedError<DocumentUnreadable>()(
  "DocumentUnreadable",
  errorFields("No text could be read from the document; nothing was stored")
) {
  static readonly http: HttpError<DocumentUnreadable> = httpError(this, { status: 422, code: "DOCUMENT_UNREADABLE" })
}

export class DocumentTooLong extends Schema.TaggedError<DocumentTooLong>()(
  "DocumentTooLong",
  errorFields(`A document's text is at most ${MAX_DOCUMENT_CHARS} characters; nothing was stored`)
) {
  static readonly http: HttpError<DocumentTooLong> = httpError(this, { status: 413, code: "DOCUMENT_TOO_LONG" })
}

export class NoFilesUploaded extends Schema.TaggedError<NoFilesUploaded>()(
  "NoFilesUploaded",
  errorFields(`Send 1 to ${MAX_UPLOAD_FILES} files as multipart parts named "file"`)
) {
  static readonly http: HttpError<NoFilesUploaded> = httpError(this, { status: 400, code: "NO_FILES" })
}

export class UnknownEmbedder extends Schema.TaggedError<UnknownEmbedder>()(
  "UnknownEmbedder",
  errorFields("This embedder is not offered by the platform")
) {
  static readonly http: HttpError<UnknownEmbedder> = httpError(this, { status: 400, code: "UNKNOWN_EMBEDDER" })
}

export class UnknownKnowledgeBase extends Schema.TaggedError<UnknownKnowledgeBase>()(
  "UnknownKnowledgeBase",
  errorFields("knowledgeBaseIds names a knowledge base this tenant does not have")
) {
  static readonly http: HttpError<UnknownKnowledgeBase> = httpError(this, {
    status: 400,
    code: "UNKNOWN_KNOWLEDGE_BASE"
  })
}

export class KnowledgeStoreUnavailable extends Schema.TaggedError<KnowledgeStoreUnavailable>()(
  "KnowledgeStoreUnavailable",
  errorFields("The vector store is unavailable; nothing was changed, try again shortly")
) {
  static readonly http: HttpError<KnowledgeStoreUnavailable> = httpError(this, {
    status: 503,
    code: "VECTOR_STORE_UNAVAILABLE"
  })
}

export class EmbedderUnavailable extends Schema.TaggedError<EmbedderUnavailable>()(
  "EmbedderUnavailable",
  errorFields("The knowledge base's embedder could not embed the query; try again shortly")
) {
  static readonly http: HttpError<EmbedderUnavailable> = httpError(this, { status: 503, code: "EMBEDDER_UNAVAILABLE" })
}
