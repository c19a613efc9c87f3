import {
  DEFAULT_TOP_K,
  KB_KEY_PATTERN,
  MAX_DOCUMENT_CHARS,
  MAX_FAQ_ANSWER,
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
} from "@voiceagent/domain/Limits"
import { useState } from "preact/hooks"
import { api, call, multipart, type Schema, when } from "../api"
import { Link, navigate } from "../router"
import {
  Card,
  Empty,
  ErrorBox,
  Field,
  Form,
  formValues,
  Page,
  Pager,
  Status,
  TextArea,
  useAction,
  useLoad
} from "../ui"

const PAGE_SIZE = 20
/** The API's bounds (packages/domain/src/KnowledgeBases.ts), checked before sending. */
/** The key's pattern as an input's `pattern` attribute (which anchors it itself). */
const KB_KEY = KB_KEY_PATTERN.source.replace(/^\^|\$$/g, "")
const TERMINAL_JOB = new Set(["SUCCEEDED", "COMPLETED_WITH_ERRORS", "FAILED"])

/** Knowledge bases: listed and created. */
export const KnowledgeBasesPage = () => {
  const [page, setPage] = useState(1)
  const kbs = useLoad(
    () => call(api().GET("/api/v1/knowledge-bases", { params: { query: { page, pageSize: PAGE_SIZE } } })),
    [page]
  )
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    const description = v.text("description")
    await call(
      api().POST("/api/v1/knowledge-bases", {
        body: { kbKey: v.text("kbKey"), kbName: v.text("kbName"), ...(description === "" ? {} : { description }) }
      })
    )
    form.reset()
    kbs.reload()
  })
  return (
    <Page title="Knowledge bases">
      <Card title="Create a knowledge base">
        <Form
          class="grid"
          onSend={create.run}
        >
          <Field
            label="Key"
            name="kbKey"
            required
            pattern={KB_KEY}
            placeholder="product-faq"
            hint="Lowercase letters, digits, - and _"
          />
          <Field label="Name" name="kbName" required maxLength={MAX_KB_NAME} />
          <Field label="Description" name="description" maxLength={MAX_KB_DESCRIPTION} />
          <div class="actions">
            <button type="submit" disabled={create.busy}>Create knowledge base</button>
          </div>
        </Form>
        <ErrorBox error={create.error} />
      </Card>
      <Card title="Your knowledge bases">
        <ErrorBox error={kbs.error} />
        {kbs.data !== undefined && kbs.data.items.length === 0 && <Empty>No knowledge bases yet.</Empty>}
        {kbs.data !== undefined && kbs.data.items.length > 0 && (
          <ul class="rows">
            {kbs.data.items.map((kb) => (
              <li key={kb.id}>
                <Link href={`/knowledge/${kb.id}`}>{kb.kbName}</Link> <Status value={kb.status} />
                <small>{kb.documentCount} documents, {kb.chunkCount} chunks</small>
              </li>
            ))}
          </ul>
        )}
        {kbs.data !== undefined && (
          <Pager label="Knowledge bases" page={page} totalPages={kbs.data.totalPages} onPage={setPage} />
        )}
      </Card>
    </Page>
  )
}

/** One knowledge base: sources and uploads, ingestion with its progress, and a query box with scores. */
export const KnowledgeBasePage = ({ id }: { readonly id: string }) => {
  const [docPage, setDocPage] = useState(1)
  const [jobId, setJobId] = useState<string | null>(null)
  const [answer, setAnswer] = useState<Schema<"QueryResult"> | null>(null)
  const kb = useLoad(() => call(api().GET("/api/v1/knowledge-bases/{kbId}", { params: { path: { kbId: id } } })), [id])
  const docs = useLoad(
    () =>
      call(
        api().GET("/api/v1/knowledge-bases/{kbId}/documents", {
          params: { path: { kbId: id }, query: { page: docPage, pageSize: PAGE_SIZE } }
        })
      ),
    [id, docPage]
  )
  const job = useLoad(
    () =>
      jobId === null
        ? Promise.resolve(undefined)
        : call(
          api().GET("/api/v1/knowledge-bases/{kbId}/ingestion-jobs/{jobId}", { params: { path: { kbId: id, jobId } } })
        ).then((j) => {
          if (TERMINAL_JOB.has(j.status)) {
            kb.reload()
            docs.reload()
          }
          return j
        }),
    [id, jobId],
    jobId === null ? undefined : 1000
  )
  const running = job.data !== undefined && !TERMINAL_JOB.has(job.data.status)
  const refresh = () => {
    kb.reload()
    docs.reload()
  }
  const addText = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    await call(
      api().POST("/api/v1/knowledge-bases/{kbId}/sources", {
        params: { path: { kbId: id } },
        body: { type: "TEXT", title: v.text("title"), text: String(new FormData(form).get("text") ?? "") }
      })
    )
    form.reset()
    refresh()
  })
  const upload = useAction(async (form: HTMLFormElement) => {
    const files = new FormData(form).getAll("file").filter((f): f is File => f instanceof File && f.size > 0)
    if (files.length === 0) throw new Error("Choose one or more files.")
    if (files.length > MAX_UPLOAD_FILES) throw new Error(`At most ${MAX_UPLOAD_FILES} files at a time.`)
    for (const file of files) {
      if (!UPLOAD_EXTENSIONS.some((ext) => file.name.toLowerCase().endsWith(ext))) {
        throw new Error(`${file.name}: only ${UPLOAD_EXTENSIONS.join(", ")} files.`)
      }
      if (file.size > MAX_UPLOAD_BYTES) throw new Error(`${file.name} is over ${MAX_UPLOAD_BYTES / 1024 / 1024} MB.`)
    }
    await call(
      api().POST("/api/v1/knowledge-bases/{kbId}/documents/upload", {
        params: { path: { kbId: id } },
        body: { file: files },
        bodySerializer: multipart
      })
    )
    form.reset()
    refresh()
  })
  const ingest = useAction(async () => {
    const accepted = await call(
      api().POST("/api/v1/knowledge-bases/{kbId}/ingestion-jobs", { params: { path: { kbId: id } } })
    )
    setJobId(accepted.jobId)
  })
  const ask = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    setAnswer(
      await call(
        api().POST("/api/v1/knowledge-bases/{kbId}/query", {
          params: { path: { kbId: id } },
          body: { query: v.text("query"), topK: Number(v.text("topK")) }
        })
      )
    )
  })
  const addUrl = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    const title = v.text("title")
    await call(
      api().POST("/api/v1/knowledge-bases/{kbId}/sources", {
        params: { path: { kbId: id } },
        body: { type: "URL", url: v.text("url"), ...(title === "" ? {} : { title }) }
      })
    )
    form.reset()
    refresh()
  })
  const addFaq = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    const questions = v.all("question").map((q) => q.trim())
    const answers = v.all("answer").map((a) => a.trim())
    const faqs = questions.flatMap((question, i) => {
      const answer = answers[i] ?? ""
      if (question === "" && answer === "") return []
      if (question === "" || answer === "") {
        throw new Error(`Pair ${i + 1}: a question needs its answer, and an answer its question.`)
      }
      return [{ question, answer }]
    })
    if (faqs.length === 0) throw new Error("Write at least one question and its answer.")
    const title = v.text("title")
    await call(
      api().POST("/api/v1/knowledge-bases/{kbId}/sources", {
        params: { path: { kbId: id } },
        body: { type: "FAQ", faqs, ...(title === "" ? {} : { title }) }
      })
    )
    form.reset()
    refresh()
  })
  const [kbSaved, setKbSaved] = useState(false)
  const edit = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    await call(
      api().PATCH("/api/v1/knowledge-bases/{kbId}", {
        params: { path: { kbId: id } },
        body: {
          kbName: v.text("kbName"),
          description: v.text("description"),
          retrievalScoreThreshold: Number(v.text("threshold"))
        }
      })
    )
    setKbSaved(true)
    kb.reload()
  })
  const [confirmingDoc, setConfirmingDoc] = useState<string | null>(null)
  const removeDoc = useAction(async (documentId: string) => {
    await call(
      api().DELETE("/api/v1/knowledge-bases/{kbId}/documents/{documentId}", {
        params: { path: { kbId: id, documentId } }
      })
    )
    refresh()
  })
  const [confirmDelete, setConfirmDelete] = useState(false)
  const remove = useAction(async () => {
    await call(api().DELETE("/api/v1/knowledge-bases/{kbId}", { params: { path: { kbId: id } } }))
    navigate("/knowledge")
  })
  const k = kb.data
  return (
    <Page title={k?.kbName ?? "Knowledge base"} actions={k !== undefined && <Status value={k.status} />}>
      <ErrorBox error={kb.error} />
      {k !== undefined && (
        <p class="hint">
          <code>{k.kbKey}</code> · {k.documentCount} documents, {k.chunkCount} chunks · embedder{" "}
          <code>{k.embedder}</code> · last ingested {when(k.lastIngestedAt)}
        </p>
      )}
      <Card title="Add text">
        <Form
          class="stack"
          onSend={addText.run}
        >
          <Field label="Title" name="title" required maxLength={MAX_TITLE} />
          <TextArea label="Text" name="text" required maxLength={MAX_DOCUMENT_CHARS} rows={5} />
          <div class="actions">
            <button type="submit" disabled={addText.busy}>Add text</button>
          </div>
        </Form>
        <ErrorBox error={addText.error} />
      </Card>
      <Card title="Add a web page">
        <Form class="grid" onSend={addUrl.run}>
          <Field
            label="Page address"
            name="url"
            type="url"
            required
            maxLength={MAX_URL_LENGTH}
            placeholder="https://example.com/help"
          />
          <Field label="Title (optional)" name="title" maxLength={MAX_TITLE} />
          <div class="actions">
            <button type="submit" disabled={addUrl.busy}>Add page</button>
          </div>
        </Form>
        <ErrorBox error={addUrl.error} />
      </Card>
      <Card title="Add questions and answers">
        <Form class="stack" onSend={addFaq.run}>
          <Field label="FAQ title (optional)" name="title" maxLength={MAX_TITLE} />
          {[1, 2, 3].map((n) => (
            <div class="grid" key={n}>
              <Field label={`Question ${n}`} name="question" maxLength={MAX_FAQ_QUESTION} required={n === 1} />
              <Field label={`Answer ${n}`} name="answer" maxLength={MAX_FAQ_ANSWER} required={n === 1} />
            </div>
          ))}
          <div class="actions">
            <button type="submit" disabled={addFaq.busy}>Add FAQ</button>
          </div>
        </Form>
        <ErrorBox error={addFaq.error} />
      </Card>
      <Card title="Upload documents">
        <Form
          class="grid"
          onSend={upload.run}
        >
          <label class="field">
            <span>
              Files ({UPLOAD_EXTENSIONS.join(", ")}; up to {MAX_UPLOAD_FILES}, {MAX_UPLOAD_BYTES / 1024 / 1024} MB each)
            </span>
            <input type="file" name="file" multiple accept={UPLOAD_EXTENSIONS.join(",")} required />
          </label>
          <div class="actions">
            <button type="submit" disabled={upload.busy}>{upload.busy ? "Uploading…" : "Upload"}</button>
          </div>
        </Form>
        <ErrorBox error={upload.error} />
      </Card>
      <Card title="Ingestion">
        <div class="actions">
          <button type="button" disabled={ingest.busy || running} onClick={() => void ingest.run()}>
            Ingest new and changed documents
          </button>
        </div>
        <ErrorBox error={ingest.error ?? job.error} />
        {job.data !== undefined && (
          <div role="status" aria-live="polite" data-testid="ingestion" data-status={job.data.status}>
            <p>
              Job <code>{job.data.jobId}</code>: <Status value={job.data.status} />
            </p>
            <progress
              max={Math.max(job.data.progress.chunksTotal, 1)}
              value={job.data.progress.chunksDone}
              aria-label="Chunks embedded"
            />
            <p class="hint">
              {job.data.progress.documentsDone}/{job.data.progress.documentsTotal} documents,{" "}
              {job.data.progress.chunksDone}/{job.data.progress.chunksTotal} chunks; {job.data.documents.ingested}{" "}
              ingested, {job.data.documents.unchanged} unchanged, {job.data.documents.removed} removed,{" "}
              {job.data.documents.failed} failed
            </p>
            {job.data.errors.length > 0 && (
              <ul>
                {job.data.errors.map((e, i) => (
                  <li key={i}>
                    <code>{e.code}</code> {e.documentId ?? ""}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </Card>
      <Card title="Documents">
        <ErrorBox error={docs.error ?? removeDoc.error} />
        {docs.data !== undefined && docs.data.items.length === 0 && <Empty>No documents yet.</Empty>}
        {docs.data !== undefined && docs.data.items.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Title or file</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">Chunks</th>
                  <th scope="col">Error</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {docs.data.items.map((d) => (
                  <tr key={d.id}>
                    <td>{d.title ?? d.fileName ?? d.url}</td>
                    <td>{d.sourceType}</td>
                    <td>
                      <Status value={d.status} />
                    </td>
                    <td class="num">{d.chunkCount}</td>
                    <td>{d.lastError === null ? "—" : <code>{d.lastError.code}</code>}</td>
                    <td>
                      {d.status !== "REMOVED" && (confirmingDoc === d.id
                        ? (
                          <span class="confirm">
                            <button
                              type="button"
                              class="danger"
                              disabled={removeDoc.busy}
                              onClick={() => void removeDoc.run(d.id)}
                            >
                              Remove {d.title ?? d.fileName ?? d.url}
                            </button>
                            <button
                              type="button"
                              class="secondary"
                              onClick={() => setConfirmingDoc(null)}
                            >
                              Cancel
                            </button>
                          </span>
                        )
                        : (
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Remove ${d.title ?? d.fileName ?? d.url ?? "document"}…`}
                            onClick={() => setConfirmingDoc(d.id)}
                          >
                            Remove…
                          </button>
                        ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {docs.data !== undefined && (
          <Pager label="Documents" page={docPage} totalPages={docs.data.totalPages} onPage={setDocPage} />
        )}
      </Card>
      <Card title="Query">
        <Form
          class="grid"
          onSend={ask.run}
        >
          <Field label="Question" name="query" required maxLength={MAX_QUERY_CHARS} />
          <Field
            label="Results"
            name="topK"
            type="number"
            min={1}
            max={MAX_TOP_K}
            step={1}
            defaultValue={String(DEFAULT_TOP_K)}
            required
          />
          <div class="actions">
            <button type="submit" disabled={ask.busy}>Search</button>
          </div>
        </Form>
        <ErrorBox error={ask.error} />
        {answer !== null && (
          <div data-testid="query-results">
            <p class="hint">
              Threshold {answer.threshold}, embedder <code>{answer.embedder}</code>: {answer.items.length} result(s).
            </p>
            {answer.items.length === 0 ? <Empty>Nothing scored above the threshold.</Empty> : (
              <ol class="results">
                {answer.items.map((chunk) => (
                  <li key={chunk.chunkId}>
                    <strong class="score">{chunk.score.toFixed(3)}</strong>{" "}
                    <small>{chunk.source.title ?? chunk.source.fileName ?? chunk.source.url}</small>
                    <p>{chunk.text}</p>
                  </li>
                ))}
              </ol>
            )}
          </div>
        )}
      </Card>
      {k !== undefined && (
        <Card title="Settings">
          <Form
            key={k.id}
            class="grid"
            onInput={() => setKbSaved(false)}
            onSend={edit.run}
          >
            <Field label="Knowledge base name" name="kbName" required maxLength={MAX_KB_NAME} defaultValue={k.kbName} />
            <Field label="Description" name="description" maxLength={MAX_KB_DESCRIPTION} defaultValue={k.description} />
            <Field
              label="Score threshold"
              name="threshold"
              type="number"
              required
              min={0}
              max={1}
              step={0.01}
              defaultValue={String(k.retrievalScoreThreshold)}
            />
            <ErrorBox error={edit.error} />
            <div class="actions">
              <button type="submit" disabled={edit.busy}>Save settings</button>
              {kbSaved && <span role="status">Settings saved.</span>}
            </div>
          </Form>
          <div class="actions">
            {confirmDelete
              ? (
                <span class="confirm">
                  <button
                    type="button"
                    class="danger"
                    disabled={remove.busy}
                    onClick={() => void remove.run()}
                  >
                    Delete {k.kbName}
                  </button>
                  <button type="button" class="secondary" onClick={() => setConfirmDelete(false)}>Cancel</button>
                </span>
              )
              : (
                <button
                  type="button"
                  class="secondary"
                  onClick={() => setConfirmDelete(true)}
                >
                  Delete knowledge base…
                </button>
              )}
          </div>
          <ErrorBox error={remove.error} />
        </Card>
      )}
    </Page>
  )
}
