// A page that fails to render says so, with a way back, instead of leaving a blank screen.
import { Component, type ReactNode } from 'react';

export class ErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, { error: Error | null; resetKey: string }> {
  override state = { error: null as Error | null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  // Navigating elsewhere gives the next page its chance.
  static getDerivedStateFromProps(props: { resetKey: string }, state: { resetKey: string }) {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <section className="page" role="alert">
        <h1>This page failed to show</h1>
        <p className="muted">{this.state.error.message}</p>
        <button type="button" onClick={() => location.reload()}>
          Reload the page
        </button>
      </section>
    );
  }
}
