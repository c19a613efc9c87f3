import { AGENT_LIMITS, MESSAGING_LIMITS } from "@voiceagent/domain/Limits"
import { useState } from "preact/hooks"
import { allPages, api, call, money, type Schema, when } from "../api"
import { Link } from "../router"
import {
  Card,
  CopyButton,
  Empty,
  ErrorBox,
  Field,
  Form,
  formValues,
  Page,
  Pager,
  Select,
  Status,
  TextArea,
  useAction,
  useLoad
} from "../ui"

const SMS_BODY_MAX = MESSAGING_LIMITS.smsBody.max
const NAME_MAX = MESSAGING_LIMITS.chatAppName.max
const TEMPLATE_NAME = `[a-z0-9_]{1,${MESSAGING_LIMITS.templateName.max}}`
/** Campaigns a page. */
const PAGE_SIZE = 20
const CALL_STATUSES = ["ANSWERED", "UNANSWERED", "FAILED", "BUSY"] as const
type Provider = "PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C"

/** Post-call messages: SMS and chat-app campaigns with their templates, and the chat-app webhook. */
export const MessagingPage = () => {
  const agents = useLoad(
    () => allPages((page) => call(api().GET("/api/v1/agents", { params: { query: { page, pageSize: 100 } } }))),
    []
  )
  const agentName = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id
  const agentOptions = (agents.data ?? []).map((a) => <option key={a.id} value={a.id}>{a.name}</option>)
  return (
    <Page title="Messaging">
      <ErrorBox error={agents.error} />
      <SmsCampaigns agentOptions={agentOptions} agentName={agentName} />
      <ChatAppCampaigns agentOptions={agentOptions} agentName={agentName} />
      <ChatAppWebhook />
      <MessageLogs />
      <ChatAppReplies />
    </Page>
  )
}

interface Agents {
  readonly agentOptions: ReadonlyArray<preact.JSX.Element>
  readonly agentName: (id: string) => string
}

const SmsCampaigns = ({ agentOptions, agentName }: Agents) => {
  const [page, setPage] = useState(1)
  const campaigns = useLoad(
    () => call(api().GET("/api/v1/sms-agent/campaigns", { params: { query: { page, pageSize: PAGE_SIZE } } })),
    [page]
  )
  const [editing, setEditing] = useState<string | null>(null)
  const templatesOf = (v: ReturnType<typeof formValues>) =>
    (["ANSWERED", "UNANSWERED"] as const).flatMap((callStatus) => {
      const messageBody = v.text(`body-${callStatus}`)
      return messageBody === "" ? [] : [{ callStatus, messageBody }]
    })
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    const templates = templatesOf(v)
    if (templates.length === 0) throw new Error("Write at least one message: after an answered or an unanswered call.")
    const name = v.text("name")
    const senderNumber = v.text("senderNumber")
    await call(
      api().POST("/api/v1/sms-agent/campaigns", {
        body: {
          agentId: v.text("agentId"),
          templates,
          ...(name === "" ? {} : { name }),
          ...(senderNumber === "" ? {} : { senderNumber, senderProvider: v.text("senderProvider") as Provider })
        }
      })
    )
    form.reset()
    campaigns.reload()
  })
  const update = useAction(async (id: string, body: Schema<"UpdateSmsCampaignRequest">) => {
    await call(api().PUT("/api/v1/sms-agent/campaigns/{id}", { params: { path: { id } }, body }))
    setEditing(null)
    campaigns.reload()
  })
  const remove = useAction(async (id: string) => {
    await call(api().DELETE("/api/v1/sms-agent/campaigns/{id}", { params: { path: { id } } }))
    campaigns.reload()
  })
  return (
    <Card title="SMS after calls">
      <Form
        class="grid"
        onSend={create.run}
      >
        <Select label="Agent" name="agentId" required>{agentOptions}</Select>
        <Field label="Name (optional)" name="name" maxLength={MESSAGING_LIMITS.smsName.max} />
        <Field label="Sender (E.164 or an alphanumeric id)" name="senderNumber" maxLength={16} />
        <Select label="Sender's provider" name="senderProvider">
          <option value="PROVIDER_A">Provider A</option>
          <option value="PROVIDER_B">Provider B</option>
          <option value="PROVIDER_C">Provider C</option>
        </Select>
        <TextArea
          label="After an answered call"
          name="body-ANSWERED"
          maxLength={SMS_BODY_MAX}
          rows={2}
          placeholder="Thanks for talking with {{agent_name}}!"
        />
        <TextArea label="After an unanswered call" name="body-UNANSWERED" maxLength={SMS_BODY_MAX} rows={2} />
        <div class="actions">
          <button type="submit" disabled={create.busy}>Create SMS campaign</button>
        </div>
      </Form>
      <ErrorBox error={create.error ?? campaigns.error ?? update.error ?? remove.error} />
      {campaigns.data !== undefined && campaigns.data.items.length === 0 && <Empty>No SMS campaigns yet.</Empty>}
      {campaigns.data !== undefined && campaigns.data.items.length > 0 && (
        <ul class="rows">
          {campaigns.data.items.map((c) => (
            <li key={c.id} class="stacked">
              <div class="actions">
                <strong>{c.name}</strong> <Status value={c.isActive ? "ACTIVE" : "INACTIVE"} />{" "}
                <small>{agentName(c.agentId)} · {c.senderNumber ?? "platform sender"}</small>
                <button
                  type="button"
                  class="secondary"
                  disabled={update.busy}
                  onClick={() => void update.run(c.id, { isActive: !c.isActive })}
                >
                  {c.isActive ? "Deactivate" : "Activate"}
                </button>
                <button type="button" class="secondary" onClick={() => setEditing(editing === c.id ? null : c.id)}>
                  Edit templates
                </button>
                <button type="button" class="danger" disabled={remove.busy} onClick={() => void remove.run(c.id)}>
                  Delete
                </button>
              </div>
              {editing === c.id
                ? (
                  <form
                    class="stack"
                    onSubmit={(event) => {
                      event.preventDefault()
                      const templates = templatesOf(formValues(event.currentTarget))
                      void update.run(c.id, { templates })
                    }}
                  >
                    {(["ANSWERED", "UNANSWERED"] as const).map((status) => (
                      <TextArea
                        key={status}
                        label={`After an ${status.toLowerCase()} call`}
                        name={`body-${status}`}
                        maxLength={SMS_BODY_MAX}
                        rows={2}
                        defaultValue={c.templates.find((t) => t.callStatus === status)?.messageBody ?? ""}
                      />
                    ))}
                    <div class="actions">
                      <button type="submit" disabled={update.busy}>Save templates</button>
                    </div>
                  </form>
                )
                : c.templates.map((t) => (
                  <p key={t.id} class="hint">
                    <code>{t.callStatus}</code> {t.messageBody}
                  </p>
                ))}
            </li>
          ))}
        </ul>
      )}
      {campaigns.data !== undefined && (
        <Pager label="SMS campaigns" page={page} totalPages={campaigns.data.totalPages} onPage={setPage} />
      )}
    </Card>
  )
}

const ChatAppCampaigns = ({ agentOptions, agentName }: Agents) => {
  const [page, setPage] = useState(1)
  const campaigns = useLoad(
    () => call(api().GET("/api/v1/chatapp/campaigns", { params: { query: { page, pageSize: PAGE_SIZE } } })),
    [page]
  )
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    const name = v.text("name")
    const phoneNumberId = v.text("phoneNumberId")
    const languageCode = v.text("languageCode")
    const bodyParameters = v.text("bodyParameters").split(",").map((p) => p.trim()).filter((p) => p !== "")
    await call(
      api().POST("/api/v1/chatapp/campaigns", {
        body: {
          agentId: v.text("agentId"),
          ...(name === "" ? {} : { name }),
          ...(phoneNumberId === "" ? {} : { phoneNumberId }),
          templates: [{
            templateName: v.text("templateName"),
            process: v.text("process") as "INCOMING" | "OUTGOING",
            callStatus: v.text("callStatus") as typeof CALL_STATUSES[number],
            ...(languageCode === "" ? {} : { languageCode }),
            ...(bodyParameters.length === 0 ? {} : { bodyParameters })
          }]
        }
      })
    )
    form.reset()
    campaigns.reload()
  })
  const toggle = useAction(async (c: Schema<"ChatAppCampaign">) => {
    await call(
      api().PUT("/api/v1/chatapp/campaigns/{id}", { params: { path: { id: c.id } }, body: { isActive: !c.isActive } })
    )
    campaigns.reload()
  })
  const remove = useAction(async (id: string) => {
    await call(api().DELETE("/api/v1/chatapp/campaigns/{id}", { params: { path: { id } } }))
    campaigns.reload()
  })
  const [editing, setEditing] = useState<string | null>(null)
  const edit = useAction(async (form: HTMLFormElement, id: string) => {
    const v = formValues(form)
    const names = v.all("templateName").map((n) => n.trim())
    const processes = v.all("process")
    const statuses = v.all("callStatus")
    const languages = v.all("languageCode").map((l) => l.trim())
    const parameters = v.all("bodyParameters")
    // a row whose template name is emptied is dropped: the API replaces the whole set
    const templates = names.flatMap((templateName, i) =>
      templateName === "" ? [] : [{
        templateName,
        process: processes[i] as "INCOMING" | "OUTGOING",
        callStatus: statuses[i] as typeof CALL_STATUSES[number],
        ...(languages[i] === "" ? {} : { languageCode: languages[i]! }),
        bodyParameters: (parameters[i] ?? "").split(",").map((p) => p.trim()).filter((p) => p !== "")
      }]
    )
    if (templates.length === 0) throw new Error("Keep at least one template mapping.")
    const phoneNumberId = v.text("phoneNumberId")
    await call(
      api().PUT("/api/v1/chatapp/campaigns/{id}", {
        params: { path: { id } },
        body: { name: v.text("name"), phoneNumberId: phoneNumberId === "" ? null : phoneNumberId, templates }
      })
    )
    setEditing(null)
    campaigns.reload()
  })
  return (
    <Card title="Chat-app messages after calls">
      <Form
        class="grid"
        onSend={create.run}
      >
        <Select label="Agent" name="agentId" required>{agentOptions}</Select>
        <Field label="Name (optional)" name="name" maxLength={NAME_MAX} />
        <Field label="Sending number id (optional)" name="phoneNumberId" maxLength={AGENT_LIMITS.phoneNumberId} />
        <Field
          label="Template name"
          name="templateName"
          required
          pattern={TEMPLATE_NAME}
          placeholder="call_follow_up"
        />
        <Select label="Calls" name="process">
          <option value="OUTGOING">Outgoing</option>
          <option value="INCOMING">Incoming</option>
        </Select>
        <Select label="When the call was" name="callStatus">
          {CALL_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </Select>
        <Field label="Language (optional)" name="languageCode" placeholder="en_US" pattern="[a-z]{2,3}(_[A-Z]{2})?" />
        <Field
          label="Body parameters (comma-separated)"
          name="bodyParameters"
          placeholder="{{customer_name}}, {{agent_name}}"
        />
        <div class="actions">
          <button type="submit" disabled={create.busy}>Create chat-app campaign</button>
        </div>
      </Form>
      <ErrorBox error={create.error ?? campaigns.error ?? toggle.error ?? remove.error} />
      {campaigns.data !== undefined && campaigns.data.items.length === 0 && <Empty>No chat-app campaigns yet.</Empty>}
      {campaigns.data !== undefined && campaigns.data.items.length > 0 && (
        <ul class="rows">
          {campaigns.data.items.map((c) => (
            <li key={c.id}>
              <strong>{c.name}</strong> <Status value={c.isActive ? "ACTIVE" : "INACTIVE"} />
              <small>
                {agentName(c.agentId)} ·{" "}
                {c.templates.map((t) => `${t.templateName} (${t.process} ${t.callStatus})`).join(", ")}
              </small>
              <button type="button" class="secondary" disabled={toggle.busy} onClick={() => void toggle.run(c)}>
                {c.isActive ? "Deactivate" : "Activate"}
              </button>
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  edit.clear()
                  setEditing(editing === c.id ? null : c.id)
                }}
              >
                Edit
              </button>
              <button type="button" class="danger" disabled={remove.busy} onClick={() => void remove.run(c.id)}>
                Delete
              </button>
              {editing === c.id && (
                <Form
                  class="stack"
                  aria-label={`Edit ${c.name}`}
                  onSend={(form) => edit.run(form, c.id)}
                >
                  <div class="grid">
                    <Field label="Name" name="name" required maxLength={NAME_MAX} defaultValue={c.name} />
                    <Field
                      label="Sending number id (empty: the agent's)"
                      name="phoneNumberId"
                      maxLength={AGENT_LIMITS.phoneNumberId}
                      defaultValue={c.phoneNumberId ?? ""}
                    />
                  </div>
                  {[...c.templates, undefined].map((t, i) => (
                    <fieldset class="grid" key={t?.id ?? "new"}>
                      <legend>
                        {t === undefined ? "Add a mapping" : `Mapping ${i + 1} (empty the name to remove it)`}
                      </legend>
                      <Field
                        label="Template name"
                        name="templateName"
                        pattern={TEMPLATE_NAME}
                        defaultValue={t?.templateName ?? ""}
                      />
                      <Select label="Calls" name="process" defaultValue={t?.process ?? "OUTGOING"}>
                        <option value="OUTGOING">Outgoing</option>
                        <option value="INCOMING">Incoming</option>
                      </Select>
                      <Select label="When the call was" name="callStatus" defaultValue={t?.callStatus ?? "ANSWERED"}>
                        {CALL_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
                      </Select>
                      <Field
                        label="Language"
                        name="languageCode"
                        pattern="[a-z]{2,3}(_[A-Z]{2})?"
                        defaultValue={t?.languageCode ?? ""}
                        placeholder="en_US"
                      />
                      <Field
                        label="Body parameters (comma-separated)"
                        name="bodyParameters"
                        defaultValue={t?.bodyParameters.join(", ") ?? ""}
                      />
                    </fieldset>
                  ))}
                  <ErrorBox error={edit.error} />
                  <div class="actions">
                    <button type="submit" disabled={edit.busy}>Save chat-app campaign</button>
                    <button type="button" class="secondary" onClick={() => setEditing(null)}>Cancel</button>
                  </div>
                </Form>
              )}
            </li>
          ))}
        </ul>
      )}
      {campaigns.data !== undefined && (
        <Pager label="Chat-app campaigns" page={page} totalPages={campaigns.data.totalPages} onPage={setPage} />
      )}
    </Card>
  )
}

const MESSAGE_STATUSES = ["QUEUED", "SENDING", "SENT", "DELIVERED", "READ", "FAILED"] as const

/** The messages sent after calls, by channel and status, each with its call, cost and error. */
const MessageLogs = () => {
  const [channel, setChannel] = useState<"SMS" | "CHATAPP">("SMS")
  const [status, setStatus] = useState<typeof MESSAGE_STATUSES[number] | "">("")
  const [page, setPage] = useState(1)
  const messages = useLoad(() => {
    const query = { page, pageSize: 20, ...(status === "" ? {} : { status }) }
    return channel === "SMS"
      ? call(api().GET("/api/v1/sms-agent/messages", { params: { query } }))
      : call(api().GET("/api/v1/chatapp/messages", { params: { query } }))
  }, [channel, status, page])
  return (
    <Card title="Messages sent">
      <div class="grid">
        <Select
          label="Channel"
          value={channel}
          onChange={(e) => {
            setChannel(e.currentTarget.value as "SMS" | "CHATAPP")
            setPage(1)
          }}
        >
          <option value="SMS">SMS</option>
          <option value="CHATAPP">Chat-app</option>
        </Select>
        <Select
          label="Message status"
          value={status}
          onChange={(e) => {
            setStatus(e.currentTarget.value as typeof status)
            setPage(1)
          }}
        >
          <option value="">Any</option>
          {MESSAGE_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </Select>
      </div>
      <ErrorBox error={messages.error} />
      {messages.data !== undefined && messages.data.items.length === 0 && <Empty>No messages yet.</Empty>}
      {messages.data !== undefined && messages.data.items.length > 0 && (
        <div class="table-wrap">
          <table data-testid="message-log">
            <thead>
              <tr>
                <th scope="col">To</th>
                <th scope="col">Message</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">Cost</th>
                <th scope="col">Sent</th>
                <th scope="col">Call</th>
              </tr>
            </thead>
            <tbody>
              {messages.data.items.map((m) => (
                <tr key={m.id}>
                  <td>
                    <code>{m.to}</code>
                  </td>
                  <td>{m.body ?? `${m.templateName ?? ""} ${m.bodyParameters.join(", ")}`}</td>
                  <td>
                    <Status value={m.status} />
                    {m.errorCode !== null && (
                      <>
                        <code title={m.errorMessage ?? ""}>{m.errorCode}</code>
                      </>
                    )}
                  </td>
                  <td class="num">{money(m.cost, m.currency)}</td>
                  <td>{when(m.sentAt ?? m.createdAt)}</td>
                  <td>
                    <Link href={`/calls/${m.sessionId}`}>Open call</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {messages.data !== undefined && (
        <Pager label="Messages" page={page} totalPages={messages.data.totalPages} onPage={setPage} />
      )}
    </Card>
  )
}

/** What contacts wrote back on the chat-app. */
const ChatAppReplies = () => {
  const [page, setPage] = useState(1)
  const replies = useLoad(
    () => call(api().GET("/api/v1/chatapp/replies", { params: { query: { page, pageSize: 20 } } })),
    [page]
  )
  return (
    <Card title="Chat-app replies">
      <ErrorBox error={replies.error} />
      {replies.data !== undefined && replies.data.items.length === 0 && <Empty>No replies yet.</Empty>}
      {replies.data !== undefined && replies.data.items.length > 0 && (
        <ul class="rows">
          {replies.data.items.map((r) => (
            <li key={r.id}>
              <code>{r.from}</code> {r.contactName} <small>{when(r.receivedAt)}</small> {r.text ?? `(${r.type})`}
            </li>
          ))}
        </ul>
      )}
      {replies.data !== undefined && (
        <Pager label="Replies" page={page} totalPages={replies.data.totalPages} onPage={setPage} />
      )}
    </Card>
  )
}

const ChatAppWebhook = () => {
  const details = useLoad(() => call(api().GET("/api/v1/chatapp/webhook-details")), [])
  const [token, setToken] = useState<string | null>(null)
  const issue = useAction(async () => {
    setToken((await call(api().POST("/api/v1/chatapp/webhook-token"))).token)
    details.reload()
  })
  return (
    <Card title="Chat-app webhook">
      <p class="hint">Where the chat-app provider posts replies and delivery receipts for your tenant.</p>
      {details.data !== undefined && (
        <dl>
          <dt>Webhook URL</dt>
          <dd>
            <code data-copy="webhook URL">{details.data.webhookUrl}</code>{" "}
            <CopyButton text={details.data.webhookUrl} label="webhook URL" />
          </dd>
          <dt>Verify token</dt>
          <dd>
            <code data-copy="verify token">{details.data.verifyToken}</code>{" "}
            <CopyButton text={details.data.verifyToken} label="verify token" />
          </dd>
        </dl>
      )}
      {details.error !== undefined && details.error.code !== "WEBHOOK_TOKEN_NOT_ISSUED" && (
        <ErrorBox error={details.error} />
      )}
      {details.error?.code === "WEBHOOK_TOKEN_NOT_ISSUED" && <p>{details.error.message}</p>}
      {token !== null && (
        <p role="status" data-testid="webhook-token">
          New token: <code>{token}</code>
        </p>
      )}
      <button type="button" disabled={issue.busy} onClick={() => void issue.run()}>
        {details.data === undefined ? "Issue a webhook token" : "Issue a new token"}
      </button>
      <ErrorBox error={issue.error} />
    </Card>
  )
}
