/** Shared pieces: loading data, showing the API's errors, paging, forms. */
import type { ComponentChildren, JSX } from "preact"
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { type ApiError, ApiFailure } from "./api"

export interface Loaded<T> {
  readonly data: T | undefined
  readonly error: ApiError | undefined
  readonly loading: boolean
  readonly reload: () => void
}

const asApiError = (cause: unknown): ApiError =>
  cause instanceof ApiFailure
    ? cause.apiError
    : cause instanceof Error
    ? { code: "NOT_SENT", message: cause.message }
    : { code: "ERROR", message: String(cause) }

/**
 * Loads `load()` when `deps` change and on `reload()`; with `everyMs`, again on that period while the
 * page is shown (live progress), keeping the last data on screen between loads.
 */
export function useLoad<T>(load: () => Promise<T>, deps: ReadonlyArray<unknown>, everyMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<ApiError | undefined>(undefined)
  const [loading, setLoading] = useState(true)
  const [tick, setTick] = useState(0)
  const generation = useRef(0)
  useEffect(() => {
    const mine = ++generation.current
    setLoading(true)
    load().then(
      (value) => {
        if (mine !== generation.current) return
        setData(value)
        setError(undefined)
        setLoading(false)
      },
      (cause: unknown) => {
        if (mine !== generation.current) return
        setError(asApiError(cause))
        setLoading(false)
      }
    )
  }, [...deps, tick])
  useEffect(() => {
    if (everyMs === undefined) return
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") setTick((n) => n + 1)
    }, everyMs)
    return () => clearInterval(timer)
  }, [everyMs])
  const reload = useCallback(() => setTick((n) => n + 1), [])
  return { data, error, loading, reload }
}

/** Runs an action (a form's submit, a button): busy while it runs, the API's error when it fails. */
export const useAction = <A extends ReadonlyArray<unknown>, T>(action: (...args: A) => Promise<T>) => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | undefined>(undefined)
  const run = async (...args: A): Promise<T | undefined> => {
    setBusy(true)
    setError(undefined)
    try {
      return await action(...args)
    } catch (cause) {
      setError(asApiError(cause))
      return undefined
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, run, clear: () => setError(undefined) }
}

/** The API's message as it words it, with its code; field details when it gives them. */
export const ErrorBox = ({ error }: { readonly error: ApiError | undefined }) =>
  error === undefined ? null : (
    <div class="error" role="alert">
      <strong>{error.message}</strong> <code>{error.code}</code>
      {error.details !== undefined && error.details !== null && (
        <pre class="details">
          {typeof error.details === "string" ? error.details : JSON.stringify(error.details, null, 2)}
        </pre>
      )}
    </div>
  )

export const Page = (
  { title, children, actions }: {
    readonly title: string
    readonly children: ComponentChildren
    readonly actions?: ComponentChildren
  }
) => {
  useEffect(() => {
    document.title = `${title} · Voice agents`
  }, [title])
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title" tabIndex={-1}>{title}</h1>
        {actions}
      </header>
      {children}
    </section>
  )
}

export const Card = ({ title, children }: { readonly title: string; readonly children: ComponentChildren }) => (
  <section class="card">
    <h2>{title}</h2>
    {children}
  </section>
)

/** Previous / next over a page of `totalPages`. */
export const Pager = (
  { page, totalPages, onPage, label }: {
    readonly page: number
    readonly totalPages: number
    readonly onPage: (page: number) => void
    readonly label: string
  }
) =>
  totalPages <= 1 ? null : (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span aria-live="polite">Page {page} of {totalPages}</span>
      <button type="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
  )

/** A labelled input (the label wraps it: no ids to keep unique). */
/** A form whose submission goes to `onSend` (the page does not reload). */
export const Form = (
  { onSend, ...form }: Omit<JSX.HTMLAttributes<HTMLFormElement>, "onSubmit"> & {
    readonly onSend: (form: HTMLFormElement) => unknown
  }
) => (
  <form
    {...form}
    onSubmit={(event) => {
      event.preventDefault()
      void onSend(event.currentTarget)
    }}
  />
)

export const Field = (
  { label, hint, ...input }: JSX.InputHTMLAttributes<HTMLInputElement> & {
    readonly label: string
    readonly hint?: string | undefined
  }
) => (
  <label class="field">
    <span>{label}</span>
    <input {...input} />
    {hint !== undefined && <small>{hint}</small>}
  </label>
)

export const Select = (
  { label, children, ...select }: JSX.SelectHTMLAttributes<HTMLSelectElement> & {
    readonly label: string
    readonly children: ComponentChildren
  }
) => (
  <label class="field">
    <span>{label}</span>
    <select {...select}>{children}</select>
  </label>
)

export const TextArea = (
  { label, ...area }: JSX.TextareaHTMLAttributes<HTMLTextAreaElement> & { readonly label: string }
) => (
  <label class="field wide">
    <span>{label}</span>
    <textarea {...area} />
  </label>
)

/** The form's fields by name, as strings (checkbox groups as arrays of their checked values). */
export const formValues = (form: HTMLFormElement) => {
  const data = new FormData(form)
  return {
    text: (name: string) => String(data.get(name) ?? "").trim(),
    all: (name: string) => data.getAll(name).map(String),
    file: (name: string) => data.get(name) as File | null
  }
}

/** Copies `text`; says so for a moment. */
export const CopyButton = ({ text, label }: { readonly text: string; readonly label: string }) => {
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      class="secondary"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text)
        } catch {
          // no clipboard permission (an http origin other than localhost): select the text instead
          const range = document.createRange()
          const node = document.querySelector(`[data-copy="${label}"]`)
          if (node !== null) {
            range.selectNodeContents(node)
            getSelection()?.removeAllRanges()
            getSelection()?.addRange(range)
          }
        }
        setCopied(true)
        setTimeout(() => setCopied(false), 1500)
      }}
    >
      {copied ? "Copied" : `Copy ${label}`}
    </button>
  )
}

export const Status = ({ value }: { readonly value: string }) => (
  <span class={`status status-${value.toLowerCase()}`}>{value}</span>
)

export const Empty = ({ children }: { readonly children: ComponentChildren }) => <p class="empty">{children}</p>
