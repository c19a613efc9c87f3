import { ACCOUNT_LIMITS } from "@voiceagent/domain/Limits"
import { api, call, loginNotice, startSession } from "../api"
import { Link, navigate } from "../router"
import { ErrorBox, Field, Form, formValues, useAction } from "../ui"

const PASSWORD_MIN = ACCOUNT_LIMITS.password.min

/** Sign up (`mode: "signup"`) or log in: both answer a session token, kept for the session's life. */
export const AuthPage = ({ mode }: { readonly mode: "signup" | "login" }) => {
  const action = useAction(async (form: HTMLFormElement) => {
    const values = formValues(form)
    const email = values.text("email")
    const password = String(new FormData(form).get("password") ?? "")
    if (mode === "signup") {
      const companyName = values.text("companyName")
      const created = await call(
        api().POST("/api/v1/auth/signup", {
          body: { email, password, ...(companyName === "" ? {} : { companyName }) }
        })
      )
      startSession({ token: created.token, expiresAt: created.expiresAt, email: created.user.email })
    } else {
      const logged = await call(api().POST("/api/v1/auth/login", { body: { email, password } }))
      startSession({ token: logged.token, expiresAt: logged.expiresAt, email: logged.user.email })
    }
    navigate(mode === "signup" ? "/keys" : "/agents", { replace: true })
  })
  const title = mode === "signup" ? "Create your account" : "Log in"
  return (
    <main class="auth" id="main">
      <h1>{title}</h1>
      {loginNotice.value !== null && mode === "login" && <p class="notice" role="status">{loginNotice.value}</p>}
      <Form
        onSend={action.run}
      >
        <Field label="Email" name="email" type="email" autoComplete="email" required />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete={mode === "signup" ? "new-password" : "current-password"}
          required
          minLength={mode === "signup" ? PASSWORD_MIN : undefined}
          maxLength={ACCOUNT_LIMITS.password.max}
          hint={mode === "signup" ? `At least ${PASSWORD_MIN} characters` : undefined}
        />
        {mode === "signup" && (
          <Field
            label="Company name"
            name="companyName"
            maxLength={ACCOUNT_LIMITS.companyName}
            hint="Creates your workspace (tenant)"
          />
        )}
        <ErrorBox error={action.error} />
        <button type="submit" disabled={action.busy}>{mode === "signup" ? "Sign up" : "Log in"}</button>
      </Form>
      <p>
        {mode === "signup"
          ? (
            <>
              Have an account? <Link href="/login">Log in</Link>
            </>
          )
          : (
            <>
              New here? <Link href="/signup">Create an account</Link>
            </>
          )}
      </p>
    </main>
  )
}
