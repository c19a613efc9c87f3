import { AGENT_LIMITS, VOICE_LIMITS, VOICE_NUMBER_LIMITS } from "@voiceagent/domain/Limits"
import { useState } from "preact/hooks"
import { allPages, api, call, type Schema, when } from "../api"
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
  Select,
  Status,
  TextArea,
  useAction,
  useLoad
} from "../ui"
import { TalkPanel } from "./Talk"

const PAGE_SIZE = 20
const E164 = "\\+[1-9][0-9]{1,14}"

/** Agents, listed and created from a persona; the voice numbers they call from. */
export const AgentsPage = () => {
  const [page, setPage] = useState(1)
  const agents = useLoad(
    () => call(api().GET("/api/v1/agents", { params: { query: { page, pageSize: PAGE_SIZE } } })),
    [page]
  )
  const personas = useLoad(
    () =>
      allPages((page) => call(api().GET("/api/v1/prompts/personas", { params: { query: { page, pageSize: 100 } } }))),
    []
  )
  const create = useAction(async (form: HTMLFormElement) => {
    const values = formValues(form)
    const agent = await call(
      api().POST("/api/v1/agents", { body: { name: values.text("name"), agent_persona_id: values.text("persona") } })
    )
    navigate(`/agents/${agent.id}`)
  })
  return (
    <Page title="Agents">
      <Card title="Create an agent">
        <Form
          class="grid"
          onSend={create.run}
        >
          <Field label="Name" name="name" required maxLength={AGENT_LIMITS.name} />
          <Select label="Persona" name="persona" required>
            {(personas.data ?? []).map((p) => <option key={p.id} value={p.id} title={p.description}>{p.name}</option>)}
          </Select>
          <div class="actions">
            <button type="submit" disabled={create.busy || personas.data === undefined}>Create agent</button>
          </div>
        </Form>
        <ErrorBox error={create.error ?? personas.error} />
      </Card>
      <Card title="Your agents">
        <ErrorBox error={agents.error} />
        {agents.data !== undefined && agents.data.items.length === 0 && <Empty>No agents yet.</Empty>}
        {agents.data !== undefined && agents.data.items.length > 0 && (
          <ul class="rows">
            {agents.data.items.map((agent) => (
              <li key={agent.id}>
                <Link href={`/agents/${agent.id}`}>{agent.name}</Link>
                <Status value={agent.is_active ? "ACTIVE" : "INACTIVE"} />
                <small>{agent.effectiveVoice.language}</small>
              </li>
            ))}
          </ul>
        )}
        {agents.data !== undefined && (
          <Pager label="Agents" page={page} totalPages={agents.data.totalPages} onPage={setPage} />
        )}
      </Card>
      <VoiceNumbers />
    </Page>
  )
}

const VoiceNumbers = () => {
  const [page, setPage] = useState(1)
  const numbers = useLoad(
    () => call(api().GET("/api/v1/voice-numbers", { params: { query: { page, pageSize: PAGE_SIZE } } })),
    [page]
  )
  const [confirming, setConfirming] = useState<string | null>(null)
  const create = useAction(async (form: HTMLFormElement) => {
    const values = formValues(form)
    const label = values.text("label")
    await call(
      api().POST("/api/v1/voice-numbers", {
        body: {
          phoneNumber: values.text("phoneNumber"),
          provider: values.text("provider") as "PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C",
          ...(label === "" ? {} : { label })
        }
      })
    )
    form.reset()
    numbers.reload()
  })
  const remove = useAction(async (id: string) => {
    await call(api().DELETE("/api/v1/voice-numbers/{id}", { params: { path: { id } } }))
    setConfirming(null)
    numbers.reload()
  })
  return (
    <Card title="Voice numbers">
      <Form
        class="grid"
        onSend={create.run}
      >
        <Field
          label="Phone number (E.164)"
          name="phoneNumber"
          required
          pattern={E164}
          placeholder="+14155550100"
          inputMode="tel"
        />
        <Select label="Carrier" name="provider">
          <option value="PROVIDER_A">Provider A (Twilio-style)</option>
          <option value="PROVIDER_B">Provider B</option>
          <option value="PROVIDER_C">Provider C (Telnyx-style)</option>
        </Select>
        <Field label="Label (optional)" name="label" maxLength={VOICE_NUMBER_LIMITS.label} />
        <div class="actions">
          <button type="submit" disabled={create.busy}>Add number</button>
        </div>
      </Form>
      <ErrorBox error={create.error ?? remove.error ?? numbers.error} />
      {numbers.data !== undefined && numbers.data.items.length === 0 && <Empty>No numbers yet.</Empty>}
      {numbers.data !== undefined && numbers.data.items.length > 0 && (
        <ul class="rows">
          {numbers.data.items.map((n) => (
            <li key={n.id}>
              <code>{n.phoneNumber}</code> <small>{n.provider}</small> {n.label}
              {confirming === n.id
                ? (
                  <span class="confirm">
                    <button type="button" class="danger" disabled={remove.busy} onClick={() => void remove.run(n.id)}>
                      Delete {n.phoneNumber}
                    </button>
                    <button type="button" class="secondary" onClick={() => setConfirming(null)}>Cancel</button>
                  </span>
                )
                : (
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Delete ${n.phoneNumber}…`}
                    onClick={() => setConfirming(n.id)}
                  >
                    Delete…
                  </button>
                )}
            </li>
          ))}
        </ul>
      )}
      {numbers.data !== undefined && (
        <Pager label="Voice numbers" page={page} totalPages={numbers.data.totalPages} onPage={setPage} />
      )}
    </Card>
  )
}

/** One agent: its prompt, greeting and name edited, activated or deactivated. */
export const AgentPage = ({ id }: { readonly id: string }) => {
  const agent = useLoad(() => call(api().GET("/api/v1/agents/{id}", { params: { path: { id } } })), [id])
  const [saved, setSaved] = useState(false)
  const save = useAction(async (form: HTMLFormElement) => {
    const values = formValues(form)
    await call(
      api().PATCH("/api/v1/agents/{id}", {
        params: { path: { id } },
        body: {
          name: values.text("name"),
          greetMessage: values.text("greetMessage"),
          agent_prompt: values.text("agent_prompt")
        }
      })
    )
    setSaved(true)
    agent.reload()
  })
  const toggle = useAction(async (active: boolean) => {
    await call(api().PATCH("/api/v1/agents/{id}", { params: { path: { id } }, body: { is_active: active } }))
    agent.reload()
  })
  const a = agent.data
  return (
    <Page
      title={a?.name ?? "Agent"}
      actions={a !== undefined && <Status value={a.is_active ? "ACTIVE" : "INACTIVE"} />}
    >
      <ErrorBox error={agent.error ?? toggle.error} />
      {a !== undefined && (
        <>
          <Card title="Prompt and greeting">
            <Form
              key={a.id}
              class="stack"
              onInput={() => setSaved(false)}
              onSend={save.run}
            >
              <Field label="Name" name="name" required maxLength={AGENT_LIMITS.name} defaultValue={a.name} />
              <TextArea
                label="Greeting"
                name="greetMessage"
                required
                maxLength={AGENT_LIMITS.greetMessage}
                rows={2}
                defaultValue={a.greetMessage}
              />
              <TextArea
                label="Prompt"
                name="agent_prompt"
                required
                maxLength={AGENT_LIMITS.agentPrompt}
                rows={10}
                defaultValue={a.agent_prompt}
              />
              <ErrorBox error={save.error} />
              <div class="actions">
                <button type="submit" disabled={save.busy}>Save</button>
                {saved && <span role="status">Saved.</span>}
              </div>
            </Form>
          </Card>
          <VoiceSettings agent={a} onSaved={agent.reload} />
          <CallHandling agent={a} onSaved={agent.reload} />
          <KeypadAndTransfer agent={a} onSaved={agent.reload} />
          <KnowledgeLinks agent={a} onSaved={agent.reload} />
          <ChatAppSender agentId={a.id} />
          <TalkPanel agentId={a.id} active={a.is_active} />
          <Card title="Status">
            <p>Voice: {a.effectiveVoice.language}; updated {when(a.updatedAt)}.</p>
            <button
              type="button"
              class={a.is_active ? "danger" : ""}
              disabled={toggle.busy}
              onClick={() => void toggle.run(!a.is_active)}
            >
              {a.is_active ? "Deactivate" : "Activate"}
            </button>
          </Card>
        </>
      )}
    </Page>
  )
}

type Agent = Schema<"Agent">
/** An empty field: the agent's own choice removed (null in the merge patch), the platform's default in force. */
const orNull = (value: string) => (value === "" ? null : value)

/** The agent's own voice and speech choices; a field left empty takes the platform's default (shown as a hint). */
const VoiceSettings = ({ agent, onSaved }: { readonly agent: Agent; readonly onSaved: () => void }) => {
  const [saved, setSaved] = useState(false)
  const own = agent.voice
  const effective = agent.effectiveVoice
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    const temperature = v.text("temperature")
    const recording = orNull(v.text("recording")) as "off" | "on" | "never" | null
    const languageCode = orNull(v.text("languageCode"))
    // settings only when changed: the API checks the whole settings object on any change to it
    const settings = {
      ...(recording === (agent.settings.recording ?? null) ? {} : { recording }),
      ...(languageCode === (agent.settings.languageCode ?? null) ? {} : { languageCode })
    }
    await call(
      api().PATCH("/api/v1/agents/{id}", {
        params: { path: { id: agent.id } },
        body: {
          ...(Object.keys(settings).length === 0 ? {} : { settings }),
          voice: {
            language: orNull(v.text("language")),
            speechToText: {
              provider: orNull(v.text("sttProvider")) as "deepgram" | "openai" | "none" | null,
              model: orNull(v.text("sttModel"))
            },
            languageModel: {
              provider: orNull(v.text("llmProvider")) as "openai" | "offline" | null,
              model: orNull(v.text("llmModel")),
              temperature: temperature === "" ? null : Number(temperature)
            },
            textToSpeech: {
              provider: orNull(v.text("ttsProvider")) as "elevenlabs" | "openai" | "flite" | null,
              voice: orNull(v.text("ttsVoice")),
              model: orNull(v.text("ttsModel"))
            }
          }
        }
      })
    )
    setSaved(true)
    onSaved()
  })
  const platform = (value: string | number | null | undefined) =>
    `Platform default${value === null || value === undefined ? "" : `: ${value}`}`
  return (
    <Card title="Voice and speech">
      <Form key={agent.id} class="grid" onInput={() => setSaved(false)} onSend={save.run}>
        <Field
          label="Language"
          name="language"
          maxLength={35}
          defaultValue={own.language ?? ""}
          placeholder={effective.language}
        />
        <Select label="Speech to text" name="sttProvider" defaultValue={own.speechToText?.provider ?? ""}>
          <option value="">{platform(effective.speechToText.provider)}</option>
          <option value="deepgram">Deepgram (streaming)</option>
          <option value="openai">OpenAI-compatible</option>
          <option value="none">None (the agent cannot hear)</option>
        </Select>
        <Field
          label="Speech-to-text model"
          name="sttModel"
          maxLength={VOICE_LIMITS.providerText}
          defaultValue={own.speechToText?.model ?? ""}
          placeholder={effective.speechToText.model ?? ""}
        />
        <Select label="Language model" name="llmProvider" defaultValue={own.languageModel?.provider ?? ""}>
          <option value="">{platform(effective.languageModel.provider)}</option>
          <option value="openai">OpenAI-compatible</option>
          <option value="offline">Offline (answers from knowledge bases)</option>
        </Select>
        <Field
          label="Model"
          name="llmModel"
          maxLength={VOICE_LIMITS.providerText}
          defaultValue={own.languageModel?.model ?? ""}
          placeholder={effective.languageModel.model ?? ""}
        />
        <Field
          label="Temperature"
          name="temperature"
          type="number"
          min={VOICE_LIMITS.temperature[0]}
          max={VOICE_LIMITS.temperature[1]}
          step={0.1}
          defaultValue={own.languageModel?.temperature === undefined ? "" : String(own.languageModel.temperature)}
          placeholder={String(effective.languageModel.temperature ?? "")}
        />
        <Select label="Text to speech" name="ttsProvider" defaultValue={own.textToSpeech?.provider ?? ""}>
          <option value="">{platform(effective.textToSpeech.provider)}</option>
          <option value="elevenlabs">ElevenLabs</option>
          <option value="openai">OpenAI</option>
          <option value="flite">Flite (built in)</option>
        </Select>
        <Field
          label="Voice"
          name="ttsVoice"
          maxLength={VOICE_LIMITS.providerText}
          defaultValue={own.textToSpeech?.voice ?? ""}
          placeholder={effective.textToSpeech.voice ?? ""}
        />
        <Field
          label="Speech model"
          name="ttsModel"
          maxLength={VOICE_LIMITS.providerText}
          defaultValue={own.textToSpeech?.model ?? ""}
          placeholder={effective.textToSpeech.model ?? ""}
        />
        <Select label="Recording" name="recording" defaultValue={agent.settings.recording ?? ""}>
          <option value="">Platform default (off: when a call asks)</option>
          <option value="off">Off: only calls that ask</option>
          <option value="on">On: every call unless it asks not to</option>
          <option value="never">Never</option>
        </Select>
        <Field
          label="Chat-app message language"
          name="languageCode"
          maxLength={35}
          pattern="[a-z]{2,3}(_[A-Z]{2})?"
          defaultValue={agent.settings.languageCode ?? ""}
          placeholder="en_US"
          title="The template language sent after its calls, unless the contact has one of their own"
        />
        <ErrorBox error={save.error} />
        <div class="actions">
          <button type="submit" disabled={save.busy}>Save voice</button>
          {saved && <span role="status">Voice saved.</span>}
        </div>
      </Form>
      {effective.notices.length > 0 && (
        <ul class="notice" data-testid="voice-notices">{effective.notices.map((n) => <li key={n}>{n}</li>)}</ul>
      )}
    </Card>
  )
}

/** A bounded whole number, or null (the platform's default) when left empty. */
const intOrNull = (value: string) => (value === "" ? null : Number(value))
/** A yes / no / default select's value as the patch wants it. */
const boolOrNull = (value: string) => (value === "" ? null : value === "true")
/** The API's bounds (packages/domain/src/Limits.ts), checked before sending. */
const VOICE_BOUNDS = {
  maxCallSeconds: VOICE_LIMITS.maxCallSeconds,
  minDelayMs: VOICE_LIMITS.endpointing.minDelayMs,
  maxDelayMs: VOICE_LIMITS.endpointing.maxDelayMs,
  minSpeechMs: VOICE_LIMITS.interruption.minSpeechMs,
  minWords: VOICE_LIMITS.interruption.minWords,
  reminderAfterSeconds: VOICE_LIMITS.idle.reminderAfterSeconds,
  reminders: VOICE_LIMITS.idle.reminders,
  interDigitTimeoutMs: VOICE_LIMITS.keypad.interDigitTimeoutMs,
  maxDigits: VOICE_LIMITS.keypad.maxDigits
} as const
/** One entry a line, blank lines dropped; none: null (the platform's default). */
const linesOrNull = (value: string) => {
  const lines = value.split("\n").map((line) => line.trim()).filter((line) => line !== "")
  return lines.length === 0 ? null : lines
}

const bounded = (name: keyof typeof VOICE_BOUNDS, label: string, value: number | undefined, fallback: number) => (
  <Field
    label={label}
    name={name}
    type="number"
    min={VOICE_BOUNDS[name][0]}
    max={VOICE_BOUNDS[name][1]}
    step={1}
    defaultValue={value === undefined ? "" : String(value)}
    placeholder={String(fallback)}
  />
)
const yesNo = (label: string, name: string, value: boolean | undefined, fallback: boolean) => (
  <Select label={label} name={name} defaultValue={value === undefined ? "" : String(value)}>
    <option value="">Platform default: {fallback ? "yes" : "no"}</option>
    <option value="true">Yes</option>
    <option value="false">No</option>
  </Select>
)

/**
 * Turn-taking, idle reminders, call length, the model's tools and voicemail; empty fields take the platform's defaults.
 */
const CallHandling = ({ agent, onSaved }: { readonly agent: Agent; readonly onSaved: () => void }) => {
  const [saved, setSaved] = useState(false)
  const own = agent.voice
  const effective = agent.effectiveVoice
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    const backchannels = linesOrNull(v.text("backchannels"))
    const { backchannel, backchannels: most } = VOICE_LIMITS.interruption
    if (backchannels !== null && backchannels.length > most) throw new Error(`At most ${most} backchannel phrases.`)
    const long = backchannels?.find((phrase) => phrase.length > backchannel)
    if (long !== undefined) throw new Error(`"${long}" is over ${backchannel} characters.`)
    await call(
      api().PATCH("/api/v1/agents/{id}", {
        params: { path: { id: agent.id } },
        body: {
          voice: {
            maxCallSeconds: intOrNull(v.text("maxCallSeconds")),
            endpointing: { minDelayMs: intOrNull(v.text("minDelayMs")), maxDelayMs: intOrNull(v.text("maxDelayMs")) },
            interruption: {
              enabled: boolOrNull(v.text("interruptible")),
              minSpeechMs: intOrNull(v.text("minSpeechMs")),
              minWords: intOrNull(v.text("minWords")),
              backchannels
            },
            idle: {
              reminderAfterSeconds: intOrNull(v.text("reminderAfterSeconds")),
              reminders: intOrNull(v.text("reminders")),
              reminderText: orNull(v.text("reminderText")),
              goodbyeText: orNull(v.text("goodbyeText"))
            },
            tools: { endCall: boolOrNull(v.text("endCall")), knowledgeLookup: boolOrNull(v.text("knowledgeLookup")) },
            voicemail: {
              detection: orNull(v.text("voicemailDetection")) as "off" | "carrier" | "audio" | null,
              policy: orNull(v.text("voicemailPolicy")) as "hangup" | "leave_message" | null,
              message: orNull(v.text("voicemailMessage"))
            }
          }
        }
      })
    )
    setSaved(true)
    onSaved()
  })
  return (
    <Card title="Call handling">
      <Form key={agent.id} class="grid" onInput={() => setSaved(false)} onSend={save.run}>
        {bounded("maxCallSeconds", "Longest call (seconds)", own.maxCallSeconds, effective.maxCallSeconds)}
        {bounded(
          "minDelayMs",
          "Reply after silence of at least (ms)",
          own.endpointing?.minDelayMs,
          effective.endpointing.minDelayMs
        )}
        {bounded("maxDelayMs", "and at most (ms)", own.endpointing?.maxDelayMs, effective.endpointing.maxDelayMs)}
        {yesNo("Caller may interrupt", "interruptible", own.interruption?.enabled, effective.interruption.enabled)}
        {bounded(
          "minSpeechMs",
          "Speech to pause for (ms)",
          own.interruption?.minSpeechMs,
          effective.interruption.minSpeechMs
        )}
        {bounded("minWords", "Words to interrupt", own.interruption?.minWords, effective.interruption.minWords)}
        <TextArea
          label="Backchannel phrases (one a line; they never interrupt)"
          name="backchannels"
          rows={3}
          defaultValue={(own.interruption?.backchannels ?? []).join("\n")}
          placeholder={effective.interruption.backchannels.join("\n")}
        />
        {bounded(
          "reminderAfterSeconds",
          "Remind after silence (seconds)",
          own.idle?.reminderAfterSeconds,
          effective.idle.reminderAfterSeconds
        )}
        {bounded("reminders", "Reminders before hanging up", own.idle?.reminders, effective.idle.reminders)}
        <Field
          label="Reminder"
          name="reminderText"
          maxLength={VOICE_LIMITS.idle.text}
          defaultValue={own.idle?.reminderText ?? ""}
          placeholder={effective.idle.reminderText}
        />
        <Field
          label="Goodbye on silence"
          name="goodbyeText"
          maxLength={VOICE_LIMITS.idle.text}
          defaultValue={own.idle?.goodbyeText ?? ""}
          placeholder={effective.idle.goodbyeText}
        />
        {yesNo("Model may end the call", "endCall", own.tools?.endCall, effective.tools.endCall)}
        {yesNo(
          "Model may search knowledge",
          "knowledgeLookup",
          own.tools?.knowledgeLookup,
          effective.tools.knowledgeLookup
        )}
        <Select label="Voicemail detection" name="voicemailDetection" defaultValue={own.voicemail?.detection ?? ""}>
          <option value="">Platform default: {effective.voicemail.detection}</option>
          <option value="off">Off</option>
          <option value="carrier">The carrier's (ours from the audio where it has none)</option>
          <option value="audio">Ours, from the audio</option>
        </Select>
        <Select label="On a machine" name="voicemailPolicy" defaultValue={own.voicemail?.policy ?? ""}>
          <option value="">Platform default: {effective.voicemail.policy}</option>
          <option value="hangup">Hang up</option>
          <option value="leave_message">Leave a message</option>
        </Select>
        <Field
          label="Voicemail message"
          name="voicemailMessage"
          maxLength={VOICE_LIMITS.voicemailMessage}
          defaultValue={own.voicemail?.message ?? ""}
        />
        <ErrorBox error={save.error} />
        <div class="actions">
          <button type="submit" disabled={save.busy}>Save call handling</button>
          {saved && <span role="status">Call handling saved.</span>}
        </div>
      </Form>
    </Card>
  )
}

/** The caller's keypad entries, the model's key presses, and the numbers it may transfer the call to. */
const KeypadAndTransfer = ({ agent, onSaved }: { readonly agent: Agent; readonly onSaved: () => void }) => {
  const [saved, setSaved] = useState(false)
  const own = agent.voice
  const effective = agent.effectiveVoice
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form)
    const numbers = linesOrNull(v.text("transferNumbers"))
    if (numbers !== null && numbers.length > VOICE_LIMITS.transfer.numbers) {
      throw new Error(`At most ${VOICE_LIMITS.transfer.numbers} transfer numbers.`)
    }
    const bad = numbers?.find((n) => !new RegExp(`^${E164}$`).test(n))
    if (bad !== undefined) throw new Error(`${bad} is not an E.164 number (such as +14155550100).`)
    await call(
      api().PATCH("/api/v1/agents/{id}", {
        params: { path: { id: agent.id } },
        body: {
          voice: {
            keypad: {
              terminator: orNull(v.text("terminator")) as "#" | "*" | "none" | null,
              interDigitTimeoutMs: intOrNull(v.text("interDigitTimeoutMs")),
              maxDigits: intOrNull(v.text("maxDigits")),
              agentMayPress: boolOrNull(v.text("agentMayPress"))
            },
            transfer: { numbers, warmMessage: orNull(v.text("warmMessage")) }
          }
        }
      })
    )
    setSaved(true)
    onSaved()
  })
  return (
    <Card title="Keypad and transfers">
      <Form
        key={agent.id}
        class="grid"
        aria-label="Keypad and transfers"
        onInput={() => setSaved(false)}
        onSend={save.run}
      >
        <Select label="Key that ends an entry" name="terminator" defaultValue={own.keypad?.terminator ?? ""}>
          <option value="">Platform default: {effective.keypad.terminator ?? "none"}</option>
          <option value="#">#</option>
          <option value="*">*</option>
          <option value="none">None (the timeout or the longest entry ends it)</option>
        </Select>
        {bounded(
          "interDigitTimeoutMs",
          "Entry ends after a pause of (ms)",
          own.keypad?.interDigitTimeoutMs,
          effective.keypad.interDigitTimeoutMs
        )}
        {bounded("maxDigits", "Longest entry (keys)", own.keypad?.maxDigits, effective.keypad.maxDigits)}
        {yesNo("Model may press keys", "agentMayPress", own.keypad?.agentMayPress, effective.keypad.agentMayPress)}
        <TextArea
          label="Transfer numbers (E.164, one a line; the first is the default; none: no transfers)"
          name="transferNumbers"
          rows={3}
          defaultValue={(own.transfer?.numbers ?? []).join("\n")}
          placeholder="+14155550100"
        />
        <Field
          label="Said before a warm transfer"
          name="warmMessage"
          maxLength={VOICE_LIMITS.transfer.warmMessage}
          defaultValue={own.transfer?.warmMessage ?? ""}
          placeholder={effective.transfer.warmMessage}
        />
        <ErrorBox error={save.error} />
        <div class="actions">
          <button type="submit" disabled={save.busy}>Save keypad and transfers</button>
          {saved && <span role="status">Keypad and transfers saved.</span>}
        </div>
      </Form>
    </Card>
  )
}

/** The knowledge bases the agent answers from (the API replaces the whole set). */
const KnowledgeLinks = ({ agent, onSaved }: { readonly agent: Agent; readonly onSaved: () => void }) => {
  const [saved, setSaved] = useState(false)
  const kbs = useLoad(
    () =>
      allPages((page) => call(api().GET("/api/v1/knowledge-bases", { params: { query: { page, pageSize: 100 } } }))),
    []
  )
  const save = useAction(async (form: HTMLFormElement) => {
    await call(
      api().PATCH("/api/v1/agents/{id}", {
        params: { path: { id: agent.id } },
        body: { knowledgeBaseIds: formValues(form).all("kb") }
      })
    )
    setSaved(true)
    onSaved()
  })
  const linked = new Set(agent.knowledgeBaseIds)
  return (
    <Card title="Knowledge bases">
      <ErrorBox error={kbs.error} />
      {kbs.data !== undefined && kbs.data.length === 0 && (
        <Empty>
          No knowledge bases yet: <Link href="/knowledge">create one</Link>.
        </Empty>
      )}
      {kbs.data !== undefined && kbs.data.length > 0 && (
        <Form
          key={agent.id}
          class="stack"
          onInput={() => setSaved(false)}
          onSend={save.run}
        >
          <fieldset class="days">
            <legend>Answers from</legend>
            {kbs.data.map((kb) => (
              <label key={kb.id}>
                <input type="checkbox" name="kb" value={kb.id} defaultChecked={linked.has(kb.id)} /> {kb.kbName}
              </label>
            ))}
          </fieldset>
          <ErrorBox error={save.error} />
          <div class="actions">
            <button type="submit" disabled={save.busy}>Save knowledge bases</button>
            {saved && <span role="status">Knowledge bases saved.</span>}
          </div>
        </Form>
      )}
    </Card>
  )
}

/** The agent's own chat-app sender number (over its campaign's); the API answers it when set but has no read of it. */
const ChatAppSender = ({ agentId }: { readonly agentId: string }) => {
  const [attached, setAttached] = useState<Schema<"AgentNumberAttachment"> | null>(null)
  const attach = useAction(async (form: HTMLFormElement) => {
    setAttached(
      await call(
        api().POST("/api/v1/chatapp/agents/{agentId}/attach-number", {
          params: { path: { agentId } },
          body: { phoneNumberId: formValues(form).text("senderId") }
        })
      )
    )
  })
  return (
    <Card title="Chat-app sender">
      <p class="hint">
        The chat-app phone number id this agent's post-call messages are sent from, over its campaign's.
      </p>
      <Form class="grid" onSend={attach.run}>
        <Field label="Sender phone number id" name="senderId" required maxLength={AGENT_LIMITS.phoneNumberId} />
        <div class="actions">
          <button type="submit" disabled={attach.busy}>Attach number</button>
        </div>
      </Form>
      <ErrorBox error={attach.error} />
      {attached !== null && (
        <p role="status">
          Sends from <code>{attached.phoneNumberId}</code> since {when(attached.updatedAt)}.
        </p>
      )}
    </Card>
  )
}
