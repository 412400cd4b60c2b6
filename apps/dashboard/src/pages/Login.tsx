import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorLine } from '../ui.js';

/** Admin token → session cookie (HttpOnly, SameSite=Strict); the token is not kept by the page. */
export function Login({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await api('POST', '/v1/admin/session', { token });
      setToken('');
      onLoggedIn();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <main class="login">
      <h1>Recloser</h1>
      <form onSubmit={submit}>
        <label>
          Admin token
          <input
            type="password"
            name="token"
            autocomplete="current-password"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Log in</button>
        <ErrorLine error={error} />
      </form>
    </main>
  );
}
