import { useState } from "preact/hooks"
import { allPages, api, call, money, type Schema, session, when } from "../api"
import { Link, navigate, query } from "../router"
import { Card, Empty, ErrorBox, Field, Page, Pager, Select, Status, useAction, useLoad } from "../ui"

const PAGE_SIZE = 20
const STATUSES = [
  "ANSWERED",
  "UNANSWERED",
  "BUSY",
  "FAILED",
  "CANCELED",
  "QUEUED",
  "DIALING",
  "RINGING",
  "IN_PROGRESS",
  "ENDED"
] as const
type StatusFilter = typeof STATUSES[number]

/** Call logs with filters (kept in the address, so a filtered view can be shared), paginated. */
export const CallsPage = () => {
  const params = new URLSearchParams(query.value)
  const page = Number(params.get("page") ?? "1") || 1
  const filter = {
    status: params.get("status") ?? "",
    agentId: params.get("agentId") ?? "",
    campaignId: params.get("campaignId") ?? "",
    from: params.get("from") ?? "",
    to: params.get("to") ?? ""
  }
  const agents = useLoad(
    () => allPages((page) => call(api().GET("/api/v1/agents", { params: { query: { page, pageSize: 100 } } }))),
    []
  )
  const calls = useLoad(
    () =>
      call(
        api().GET("/api/v1/call-logs", {
          params: {
            query: {
              page,
              pageSize: PAGE_SIZE,
              ...(filter.status === "" ? {} : { status: filter.status as StatusFilter }),
              ...(filter.agentId === "" ? {} : { agentId: filter.agentId }),
              ...(filter.campaignId === "" ? {} : { campaignId: filter.campaignId }),
              ...(filter.from === "" ? {} : { from: new Date(filter.from).toISOString() }),
              ...(filter.to === "" ? {} : { to: new Date(filter.to).toISOString() })
            }
          }
        })
      ),
    [query.value],
    5000
  )
  const go = (next: Record<string, string>) => {
    const search = new URLSearchParams(Object.entries(next).filter(([, value]) => value !== ""))
    navigate(`/calls${search.size === 0 ? "" : `?${search}`}`)
  }
  return (
    <Page title="Calls">
      <Card title="Filters">
        <form
          class="grid"
          onSubmit={(event) => {
            event.preventDefault()
            const data = new FormData(event.currentTarget)
            go(
              Object.fromEntries(
                ["status", "agentId", "campaignId", "from", "to"].map((k) => [k, String(data.get(k) ?? "").trim()])
              )
            )
          }}
        >
          <Select label="Status or outcome" name="status" defaultValue={filter.status}>
            <option value="">Any</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </Select>
          <Select label="Agent" name="agentId" defaultValue={filter.agentId}>
            <option value="">Any</option>
            {(agents.data ?? []).map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          </Select>
          <Field label="Campaign id" name="campaignId" defaultValue={filter.campaignId} pattern="[0-9a-fA-F-]{36}" />
          <Field label="From" name="from" type="datetime-local" defaultValue={filter.from} />
          <Field label="To" name="to" type="datetime-local" defaultValue={filter.to} />
          <div class="actions">
            <button type="submit">Apply</button>
            <button type="button" class="secondary" onClick={() => go({})}>Clear</button>
          </div>
        </form>
      </Card>
      <Card title={`Call log${calls.data === undefined ? "" : ` (${calls.data.total})`}`}>
        <ErrorBox error={calls.error} />
        {calls.data !== undefined && calls.data.items.length === 0 && <Empty>No calls match.</Empty>}
        {calls.data !== undefined && calls.data.items.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">To</th>
                  <th scope="col">Direction</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">Talk</th>
                  <th scope="col" class="num">Cost</th>
                </tr>
              </thead>
              <tbody>
                {calls.data.items.map((c) => (
                  <tr key={c.sessionId}>
                    <td>
                      <Link href={`/calls/${c.sessionId}`}>{when(c.createdAt)}</Link>
                    </td>
                    <td>
                      <code>{c.toNumber ?? "web"}</code>
                    </td>
                    <td>{c.direction}</td>
                    <td>
                      <Status value={c.outcome ?? c.status} />
                    </td>
                    <td class="num">{c.durationSeconds} s</td>
                    <td class="num">{money(c.cost, c.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {calls.data !== undefined && (
          <Pager
            label="Calls"
            page={page}
            totalPages={calls.data.totalPages}
            onPage={(p) => go({ ...filter, page: String(p) })}
          />
        )}
      </Card>
    </Page>
  )
}

/** One call: its figures, its transcript turn by turn (interrupted turns marked), per-turn latency, recording. */
export const CallPage = ({ id }: { readonly id: string }) => {
  const detail = useLoad(() => call(api().GET("/api/v1/calls/{sessionId}", { params: { path: { sessionId: id } } })), [
    id
  ])
  const live = detail.data !== undefined && detail.data.status !== "ENDED"
  // a call still going on is read again until it ends
  const again = useLoad(
    () => (live
      ? call(api().GET("/api/v1/calls/{sessionId}", { params: { path: { sessionId: id } } }))
      : Promise.resolve(undefined)),
    [id, live],
    live ? 1000 : undefined
  )
  const c = again.data ?? detail.data
  return (
    <Page
      title="Call"
      actions={c !== undefined && (
        <span data-testid="call-status" data-status={c.status}>
          <Status value={c.outcome ?? c.status} />
        </span>
      )}
    >
      <ErrorBox error={detail.error} />
      {c !== undefined && (
        <>
          <div class="stats">
            <div class="stat">
              <span>To</span>
              <strong>{c.toNumber ?? "web call"}</strong>
            </div>
            <div class="stat">
              <span>Talk time</span>
              <strong>{c.durationSeconds} s</strong>
            </div>
            <div class="stat">
              <span>Cost</span>
              <strong>{money(c.cost, c.currency)}</strong>
            </div>
            <div class="stat">
              <span>Ended</span>
              <strong>{c.endReason ?? "—"}</strong>
            </div>
          </div>
          <p class="hint">
            Started {when(c.createdAt)}, answered {when(c.answeredAt)}, ended {when(c.endedAt)}
            {c.campaignId !== null && (
              <>
                · <Link href={`/campaigns/${c.campaignId}`}>campaign</Link>
              </>
            )}
          </p>
          <Card title="Transcript">
            <Transcript lines={c.transcript} />
          </Card>
          <Card title="Latency per turn">
            <LatencyChart lines={c.transcript} />
          </Card>
          {c.recording !== undefined && c.recording !== null && (
            <Recording sessionId={c.sessionId} recording={c.recording} />
          )}
        </>
      )}
    </Page>
  )
}

const Transcript = ({ lines }: { readonly lines: ReadonlyArray<Schema<"TranscriptLine">> }) =>
  lines.length === 0 ? <Empty>Nothing was said.</Empty> : (
    <ol class="transcript" data-testid="transcript">
      {lines.map((line, i) => (
        <li key={i} class={`turn ${line.speaker}${line.interrupted ? " interrupted" : ""}`}>
          <span class="who">{line.speaker === "agent" ? "Agent" : "Caller"}</span>
          <time dateTime={line.at}>{new Date(line.at).toLocaleTimeString()}</time>
          <p>
            {line.text}
            {line.interrupted && (
              <span class="badge" title="The caller spoke over this line and it stopped there">interrupted</span>
            )}
          </p>
          {line.latency !== null && <small>{line.latency.voiceToVoiceMs} ms voice-to-voice</small>}
        </li>
      ))}
    </ol>
  )

const MEASURES = [
  ["endpointingMs", "Endpointing", "#7a8ca8"],
  ["sttFinalLagMs", "Speech-to-text final", "#2452d6"],
  ["llmFirstTokenMs", "Model first token", "#d67a24"],
  ["ttsFirstByteMs", "Speech first audio", "#2a9d55"],
  ["voiceToVoiceMs", "Voice to voice", "#17202e"]
] as const

/**
 * Each agent answer's latencies as bars on one scale (an inline SVG: no charting library in this
 * first cut). The measures overlap in time (each runs from the caller going quiet, or from its own
 * request), so they are drawn side by side, never stacked; the same figures as a table for screen readers.
 */
const LatencyChart = ({ lines }: { readonly lines: ReadonlyArray<Schema<"TranscriptLine">> }) => {
  const turns = lines.filter((l) => l.latency !== null).map((l) => l.latency!)
  if (turns.length === 0) return <Empty>No measured turns: the caller said nothing the agent answered.</Empty>
  const max = Math.max(...turns.flatMap((t) => MEASURES.map(([key]) => t[key] ?? 0)), 1)
  const bar = 9
  const gap = 3
  const labelWidth = 56
  const width = 600
  const plot = width - labelWidth - 70
  const groupHeight = MEASURES.length * (bar + gap) + 12
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${width} ${turns.length * groupHeight}`}
        role="img"
        aria-label="Voice-to-voice latency per turn"
      >
        {turns.map((t, i) => (
          <g key={i} transform={`translate(0 ${i * groupHeight})`}>
            <text x={0} y={bar + 2} font-size="11" fill="#5b6678">Turn {i + 1}</text>
            {MEASURES.map(([key, label, color], j) => {
              const ms = t[key]
              const y = j * (bar + gap)
              return (
                <g key={key}>
                  <rect
                    x={labelWidth}
                    y={y}
                    width={ms === null ? 0 : Math.max(1, (ms / max) * plot)}
                    height={bar}
                    fill={color}
                    rx={2}
                  >
                    <title>{`${label}: ${ms === null ? "not measured" : `${ms} ms`}`}</title>
                  </rect>
                  <text
                    x={labelWidth + (ms === null ? 0 : (ms / max) * plot) + 4}
                    y={y + bar - 1}
                    font-size="9"
                    fill="#17202e"
                  >
                    {ms === null ? "—" : `${ms} ms`}
                  </text>
                </g>
              )
            })}
          </g>
        ))}
      </svg>
      <figcaption>
        {MEASURES.map(([, label, color]) => (
          <span key={label} class="legend">
            <i style={{ background: color }} /> {label}
          </span>
        ))}
      </figcaption>
      <table class="sr-only">
        <thead>
          <tr>
            <th>Turn</th>
            {MEASURES.map(([, label]) => <th key={label}>{label} (ms)</th>)}
          </tr>
        </thead>
        <tbody>
          {turns.map((t, i) => (
            <tr key={i}>
              <td>{i + 1}</td>
              {MEASURES.map(([key]) => <td key={key}>{t[key] ?? "—"}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  )
}

/** The recording needs the session's credential, which an <audio src> cannot send: fetched, then played from a blob. */
const Recording = (
  { sessionId, recording }: { readonly sessionId: string; readonly recording: Schema<"RecordingSummary"> }
) => {
  const [url, setUrl] = useState<string | null>(null)
  const load = useAction(async () => {
    const response = await fetch(`/api/v1/calls/${sessionId}/recording`, {
      headers: { authorization: `Bearer ${session.value?.token ?? ""}` }
    })
    if (!response.ok) {
      const body = await response.json().catch(() => undefined) as { error?: { message?: string } } | undefined
      throw new Error(body?.error?.message ?? `The recording could not be fetched (${response.status}).`)
    }
    setUrl(URL.createObjectURL(await response.blob()))
  })
  return (
    <Card title="Recording">
      <p class="hint">
        {Math.round(recording.durationMs / 1000)} s, {Math.round(recording.bytes / 1024)} KB, {recording.sampleRate}
        {" "}
        Hz stereo (left: caller, right: agent).
      </p>
      {url === null
        ? <button type="button" disabled={load.busy} onClick={() => void load.run()}>Load recording</button>
        : <audio controls src={url} />}
      <ErrorBox error={load.error} />
    </Card>
  )
}
