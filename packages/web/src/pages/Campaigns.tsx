import { CAMPAIGN_LIMITS } from "@voiceagent/domain/Limits"
import { useState } from "preact/hooks"
import { allPages, api, call, type Schema, when } from "../api"
import { Link, navigate } from "../router"
import { Card, Empty, ErrorBox, Field, Form, formValues, Page, Pager, Select, Status, useAction, useLoad } from "../ui"

const PAGE_SIZE = 15
const HHMM = "([01][0-9]|2[0-3]):[0-5][0-9]"
const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const
/** The API's bounds, checked before sending. */
const LIMITS = CAMPAIGN_LIMITS
type Bounded = "dialTimeout" | "maxAttempts" | "redialDelayMin" | "maxConcurrentCalls"
const zones = (): ReadonlyArray<string> => {
  try {
    return [
      "UTC",
      ...(Intl as unknown as { supportedValuesOf(key: string): Array<string> }).supportedValuesOf("timeZone")
    ]
  } catch {
    return ["UTC"]
  }
}

/** Voice campaigns: created with schedule, window, days, attempts; listed with their progress. */
export const CampaignsPage = () => {
  const [page, setPage] = useState(1)
  const campaigns = useLoad(
    () => call(api().GET("/api/v1/campaigns", { params: { query: { page, pageSize: PAGE_SIZE } } })),
    [page],
    3000
  )
  return (
    <Page title="Campaigns">
      <CreateCampaign />
      <Card title="Your campaigns">
        <ErrorBox error={campaigns.error} />
        {campaigns.data !== undefined && campaigns.data.items.length === 0 && <Empty>No campaigns yet.</Empty>}
        {campaigns.data !== undefined && campaigns.data.items.length > 0 && (
          <ul class="rows">
            {campaigns.data.items.map((c) => (
              <li key={c.id}>
                <Link href={`/campaigns/${c.id}`}>{c.name}</Link> <Status value={c.status} />
                <small>{c.dialedContacts}/{c.totalContacts} dialed, {c.answeredContacts} answered</small>
              </li>
            ))}
          </ul>
        )}
        {campaigns.data !== undefined && (
          <Pager label="Campaigns" page={page} totalPages={campaigns.data.totalPages} onPage={setPage} />
        )}
      </Card>
    </Page>
  )
}

/** Every agent, voice number and contact list, page after page, for a campaign's pickers. */
const usePickers = () => ({
  agents: useLoad(
    () => allPages((page) => call(api().GET("/api/v1/agents", { params: { query: { page, pageSize: 100 } } }))),
    []
  ),
  numbers: useLoad(
    () => allPages((page) => call(api().GET("/api/v1/voice-numbers", { params: { query: { page, pageSize: 100 } } }))),
    []
  ),
  lists: useLoad(
    () => allPages((page) => call(api().GET("/api/v1/contact-lists", { params: { query: { page, pageSize: 100 } } }))),
    []
  )
})

type Pickers = ReturnType<typeof usePickers>

/**
 * The agent (active ones: the API refuses to dial with another), the number and the list, each chosen from all of them.
 */
const PickerFields = ({ pickers, campaign }: { readonly pickers: Pickers; readonly campaign?: Schema<"Campaign"> }) => (
  <>
    <Select label="Agent" name="agentId" required defaultValue={campaign?.agentId}>
      {(pickers.agents.data ?? []).filter((a) => a.is_active || a.id === campaign?.agentId).map((a) => (
        <option key={a.id} value={a.id}>{a.name}</option>
      ))}
    </Select>
    <Select label="From number" name="voiceNumberId" required defaultValue={campaign?.voiceNumberId}>
      {(pickers.numbers.data ?? []).map((n) => <option key={n.id} value={n.id}>{n.phoneNumber}</option>)}
    </Select>
    <Select label="Contact list" name="contactListId" required defaultValue={campaign?.contactListId}>
      {(pickers.lists.data ?? []).map((l) => <option key={l.id} value={l.id}>{l.name} ({l.contactCount})</option>)}
    </Select>
  </>
)

/** Dialing restricted to each contact's own local hours (from their number's time zone), as the API takes it. */
const RecipientHoursFields = ({ hours }: { readonly hours?: Schema<"Campaign">["recipientCallingHours"] }) => (
  <fieldset class="days">
    <legend>Contact's local hours</legend>
    <label>
      <input
        type="checkbox"
        name="recipientHours"
        value="on"
        defaultChecked={hours?.enabled ?? LIMITS.recipientCallingHours.defaultEnabled}
      />{" "}
      Only call within them
    </label>
    <Field
      label="From"
      name="recipientStart"
      required
      pattern={HHMM}
      defaultValue={hours?.start.slice(0, 5) ?? LIMITS.recipientCallingHours.defaultStart}
    />
    <Field
      label="Until"
      name="recipientEnd"
      required
      pattern={HHMM}
      defaultValue={hours?.end.slice(0, 5) ?? LIMITS.recipientCallingHours.defaultEnd}
    />
  </fieldset>
)

/** The schedule a form gives (checked as the API checks it), for a create or an update. */
const scheduleOf = (v: ReturnType<typeof formValues>) => {
  const start = v.text("callWindowStart")
  const end = v.text("callWindowEnd")
  if (end <= start) throw new Error("The call window must end after it starts.")
  const callDays = v.all("callDays").map(Number)
  if (callDays.length === 0) throw new Error("Choose at least one calling day.")
  const timezone = v.text("timezone")
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone }) // the API's check (CallWindow.isValidTimezone)
  } catch {
    throw new Error(`${timezone} is not a time zone: choose an IANA name such as Europe/Paris.`)
  }
  const recipientStart = v.text("recipientStart")
  const recipientEnd = v.text("recipientEnd")
  if (recipientEnd <= recipientStart) throw new Error("The contact's local hours must end after they start.")
  return {
    agentId: v.text("agentId"),
    voiceNumberId: v.text("voiceNumberId"),
    contactListId: v.text("contactListId"),
    timezone,
    callWindowStart: start,
    callWindowEnd: end,
    callDays,
    recipientCallingHours: { enabled: v.all("recipientHours").length > 0, start: recipientStart, end: recipientEnd },
    maxAttempts: Number(v.text("maxAttempts")),
    redialDelayMin: Number(v.text("redialDelayMin")),
    dialTimeout: Number(v.text("dialTimeout")),
    maxConcurrentCalls: Number(v.text("maxConcurrentCalls"))
  }
}

const TimeZoneField = ({ value }: { readonly value: string }) => (
  <>
    <Field label="Time zone" name="timezone" required list="timezones" defaultValue={value} />
    <datalist id="timezones">{zones().map((z) => <option key={z} value={z} />)}</datalist>
  </>
)

const CreateCampaign = () => {
  const pickers = usePickers()
  const { agents, numbers, lists } = pickers
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    const created = await call(api().POST("/api/v1/campaigns", { body: { name: v.text("name"), ...scheduleOf(v) } }))
    navigate(`/campaigns/${created.id}`)
  })
  const missing = [
    agents.data?.length === 0 && "an agent",
    numbers.data?.length === 0 && "a voice number",
    lists.data?.length === 0 && "a contact list"
  ].filter(Boolean)
  const bounded = (name: Bounded, label: string) => (
    <Field
      label={label}
      name={name}
      type="number"
      required
      min={LIMITS[name].min}
      max={LIMITS[name].max}
      step={1}
      defaultValue={String(LIMITS[name].default)}
    />
  )
  return (
    <Card title="Create a campaign">
      {missing.length > 0 && <p class="notice">A campaign needs {missing.join(", ")} first.</p>}
      <Form
        class="grid"
        onSend={create.run}
      >
        <Field label="Name" name="name" required maxLength={LIMITS.name.max} />
        <PickerFields pickers={pickers} />
        <TimeZoneField value={Intl.DateTimeFormat().resolvedOptions().timeZone || LIMITS.timezone.default} />
        <Field
          label="Window opens"
          name="callWindowStart"
          required
          pattern={HHMM}
          defaultValue={LIMITS.callWindow.defaultStart}
          placeholder="HH:MM"
        />
        <Field
          label="Window closes"
          name="callWindowEnd"
          required
          pattern={HHMM}
          defaultValue={LIMITS.callWindow.defaultEnd}
          placeholder="HH:MM"
        />
        <fieldset class="days">
          <legend>Calling days</legend>
          {DAYS.map((day, i) => (
            <label key={day}>
              <input
                type="checkbox"
                name="callDays"
                value={String(i + 1)}
                defaultChecked={LIMITS.callDays.default.includes(i + 1)}
              />{" "}
              {day}
            </label>
          ))}
        </fieldset>
        <RecipientHoursFields />
        {bounded("maxAttempts", "Attempts per contact")}
        {bounded("redialDelayMin", "Redial delay (minutes)")}
        {bounded("dialTimeout", "Ring timeout (seconds)")}
        {bounded("maxConcurrentCalls", "Concurrent calls")}
        <div class="actions">
          <button type="submit" disabled={create.busy || missing.length > 0}>Create campaign</button>
        </div>
      </Form>
      <ErrorBox error={create.error ?? agents.error ?? numbers.error ?? lists.error} />
    </Card>
  )
}

const TERMINAL = new Set(["COMPLETED", "FAILED"])

/** One campaign: its controls (the API's refusals shown as it words them) and its live progress. */
export const CampaignPage = ({ id }: { readonly id: string }) => {
  const campaign = useLoad(() => call(api().GET("/api/v1/campaigns/{id}", { params: { path: { id } } })), [id], 2000)
  const live = campaign.data === undefined || !TERMINAL.has(campaign.data.status)
  const progress = useLoad(
    () => call(api().GET("/api/v1/campaigns/{id}/progress", { params: { path: { id } } })),
    [id],
    live ? 1000 : undefined
  )
  const [attemptsPage, setAttemptsPage] = useState(1)
  const attempts = useLoad(
    () =>
      call(
        api().GET("/api/v1/campaigns/{id}/attempts", {
          params: { path: { id }, query: { page: attemptsPage, pageSize: 20 } }
        })
      ),
    [id, attemptsPage],
    live ? 2000 : undefined
  )
  const act = useAction(async (what: "schedule" | "pause" | "resume" | "abort" | "delete", form?: HTMLFormElement) => {
    const path = { params: { path: { id } } }
    switch (what) {
      case "schedule": {
        const at = form === undefined ? "" : formValues(form).text("scheduledAt")
        await call(
          api().POST("/api/v1/campaigns/{id}/schedule", {
            ...path,
            body: at === "" ? {} : { scheduledAt: new Date(at).toISOString() }
          })
        )
        break
      }
      case "pause":
        await call(api().POST("/api/v1/campaigns/{id}/pause", path))
        break
      case "resume":
        await call(api().POST("/api/v1/campaigns/{id}/resume", path))
        break
      case "abort":
        await call(api().POST("/api/v1/campaigns/{id}/abort", path))
        break
      case "delete":
        await call(api().DELETE("/api/v1/campaigns/{id}", path))
        navigate("/campaigns")
        return
    }
    campaign.reload()
    progress.reload()
  })
  const c = campaign.data
  return (
    <Page title={c?.name ?? "Campaign"} actions={c !== undefined && <Status value={c.status} />}>
      <ErrorBox error={campaign.error} />
      {c !== undefined && (
        <>
          <Card title="Controls">
            <form
              class="grid"
              onSubmit={(event) => {
                event.preventDefault()
                void act.run("schedule", event.currentTarget)
              }}
            >
              <Field label="Start at (empty: now)" name="scheduledAt" type="datetime-local" />
              <div class="actions">
                <button type="submit" disabled={act.busy}>Schedule</button>
                <button type="button" class="secondary" disabled={act.busy} onClick={() => void act.run("pause")}>
                  Pause
                </button>
                <button type="button" class="secondary" disabled={act.busy} onClick={() => void act.run("resume")}>
                  Resume
                </button>
                <button type="button" class="danger" disabled={act.busy} onClick={() => void act.run("abort")}>
                  Abort
                </button>
                <button type="button" class="danger" disabled={act.busy} onClick={() => void act.run("delete")}>
                  Delete
                </button>
              </div>
            </form>
            <ErrorBox error={act.error} />
            <p class="hint">
              {c.timezone}, {c.callWindowStart}–{c.callWindowEnd} on{" "}
              {c.callDays.map((d) => DAYS[d - 1]).join(", ")}; up to {c.maxAttempts} attempt(s), {c.redialDelayMin}{" "}
              min apart{c.statusReason !== null && (
                <>
                  ; reason: <code>{c.statusReason}</code>
                </>
              )}.
            </p>
          </Card>
          {c.status === "DRAFT" && <EditDraft campaign={c} onSaved={campaign.reload} />}
          <Progress progress={progress.data} error={progress.error} />
          <Card title="Attempts">
            <ErrorBox error={attempts.error} />
            {attempts.data !== undefined && attempts.data.items.length === 0 && <Empty>No attempts yet.</Empty>}
            {attempts.data !== undefined && attempts.data.items.length > 0 && (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Contact</th>
                      <th scope="col">#</th>
                      <th scope="col">Status</th>
                      <th scope="col">Outcome</th>
                      <th scope="col">Call</th>
                    </tr>
                  </thead>
                  <tbody>
                    {attempts.data.items.map((a) => (
                      <tr key={a.id}>
                        <td>
                          <code>{a.phoneNumber}</code> {a.contactName}
                        </td>
                        <td>{a.attemptNumber}</td>
                        <td>{a.status}{a.skipReason !== null && ` (${a.skipReason})`}</td>
                        <td>{a.outcome ?? "—"}</td>
                        <td>{a.sessionId === null ? "—" : <Link href={`/calls/${a.sessionId}`}>Open call</Link>}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {attempts.data !== undefined && (
              <Pager
                label="Attempts"
                page={attemptsPage}
                totalPages={attempts.data.totalPages}
                onPage={setAttemptsPage}
              />
            )}
          </Card>
        </>
      )}
    </Page>
  )
}

const Progress = (
  { progress, error }: {
    readonly progress: Schema<"CampaignProgress"> | undefined
    readonly error: Parameters<typeof ErrorBox>[0]["error"]
  }
) => (
  <Card title="Progress">
    <ErrorBox error={error} />
    {progress !== undefined && (
      <div aria-live="polite" data-testid="progress" data-status={progress.status}>
        <div class="stats">
          <div class="stat">
            <span>Status</span>
            <strong>{progress.status}</strong>
          </div>
          <div class="stat">
            <span>Dialed</span>
            <strong>{progress.dialedContacts} / {progress.totalContacts}</strong>
          </div>
          <div class="stat">
            <span>Answered</span>
            <strong>{progress.answeredContacts}</strong>
          </div>
          <div class="stat">
            <span>Answer rate</span>
            <strong>{progress.answerRate === null ? "—" : `${Math.round(progress.answerRate * 100)}%`}</strong>
          </div>
        </div>
        <progress
          max={Math.max(progress.totalContacts, 1)}
          value={progress.dialedContacts}
          aria-label="Contacts dialed"
        />
        <div class="two">
          <dl class="counts" aria-label="Contacts by state">
            {Object.entries(progress.contacts).map(([state, n]) => (
              <div key={state}>
                <dt>{state}</dt>
                <dd>{n}</dd>
              </div>
            ))}
          </dl>
          <dl class="counts" aria-label="Attempts by outcome">
            {Object.entries(progress.attempts).map(([outcome, n]) => (
              <div key={outcome}>
                <dt>{outcome}</dt>
                <dd>{n}</dd>
              </div>
            ))}
          </dl>
        </div>
        <p class="hint">
          Call window {progress.callWindowOpen ? "open now" : `closed; opens ${when(progress.nextWindowOpensAt)}`}
          {progress.nextAttemptAt !== null && `; next attempt ${when(progress.nextAttemptAt)}`}.
        </p>
      </div>
    )}
  </Card>
)

/**
 * Everything of a draft: its agent, number, list, schedule and
 * dialing bounds (the API refuses edits once it is scheduled).
 */
const EditDraft = ({ campaign, onSaved }: { readonly campaign: Schema<"Campaign">; readonly onSaved: () => void }) => {
  const [saved, setSaved] = useState(false)
  const pickers = usePickers()
  const loaded = pickers.agents.data !== undefined && pickers.numbers.data !== undefined &&
    pickers.lists.data !== undefined
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    await call(
      api().PATCH("/api/v1/campaigns/{id}", {
        params: { path: { id: campaign.id } },
        body: { name: v.text("name"), description: v.text("description"), ...scheduleOf(v) }
      })
    )
    setSaved(true)
    onSaved()
  })
  const bounded = (name: Bounded, label: string) => (
    <Field
      label={label}
      name={name}
      type="number"
      required
      min={LIMITS[name].min}
      max={LIMITS[name].max}
      step={1}
      defaultValue={String(campaign[name])}
    />
  )
  return (
    <Card title="Edit the draft">
      <ErrorBox error={pickers.agents.error ?? pickers.numbers.error ?? pickers.lists.error} />
      {/* shown once the pickers are there: a select takes its default from the options it has then */}
      {!loaded ?
        <p class="hint">Loading the agents, numbers and lists…</p> :
        (
          <Form
            key={campaign.id}
            class="grid"
            aria-label="Edit the draft"
            onInput={() => setSaved(false)}
            onSend={save.run}
          >
            <Field label="Name" name="name" required maxLength={LIMITS.name.max} defaultValue={campaign.name} />
            <Field
              label="Description"
              name="description"
              maxLength={LIMITS.description.max}
              defaultValue={campaign.description}
            />
            <PickerFields pickers={pickers} campaign={campaign} />
            <TimeZoneField value={campaign.timezone} />
            <Field
              label="Window opens"
              name="callWindowStart"
              required
              pattern={HHMM}
              defaultValue={campaign.callWindowStart.slice(0, 5)}
            />
            <Field
              label="Window closes"
              name="callWindowEnd"
              required
              pattern={HHMM}
              defaultValue={campaign.callWindowEnd.slice(0, 5)}
            />
            <fieldset class="days">
              <legend>Calling days</legend>
              {DAYS.map((day, i) => (
                <label key={day}>
                  <input
                    type="checkbox"
                    name="callDays"
                    value={String(i + 1)}
                    defaultChecked={campaign.callDays.includes(i + 1)}
                  />{" "}
                  {day}
                </label>
              ))}
            </fieldset>
            <RecipientHoursFields hours={campaign.recipientCallingHours} />
            {bounded("maxAttempts", "Attempts per contact")}
            {bounded("redialDelayMin", "Redial delay (minutes)")}
            {bounded("dialTimeout", "Ring timeout (seconds)")}
            {bounded("maxConcurrentCalls", "Concurrent calls")}
            <ErrorBox error={save.error} />
            <div class="actions">
              <button type="submit" disabled={save.busy}>Save draft</button>
              {saved && <span role="status">Draft saved.</span>}
            </div>
          </Form>
        )}
    </Card>
  )
}
