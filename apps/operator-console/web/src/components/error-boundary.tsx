import { Component, type ComponentChildren } from 'preact';

interface ErrorBoundaryState {
  readonly error: Error | null;
}

/** Shows what broke instead of a blank page when a page throws while rendering. */
export class ErrorBoundary extends Component<{ children: ComponentChildren }, ErrorBoundaryState> {
  override state: ErrorBoundaryState = { error: null };

  static override getDerivedStateFromError(error: unknown): ErrorBoundaryState {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown): void {
    console.error('The console failed to render a page', error);
  }

  override render() {
    const { error } = this.state;
    if (error === null) return this.props.children;
    return (
      <section class="page" aria-labelledby="page-error-heading">
        <h1 id="page-error-heading">Something went wrong</h1>
        <div class="alert alert-error" role="alert">
          <p>
            <strong class="error-code">CONSOLE_ERROR</strong>{' '}
            <span class="error-message">{error.message}</span>
          </p>
        </div>
        <p>
          <button type="button" class="button" onClick={() => this.setState({ error: null })}>
            Try again
          </button>{' '}
          <a href="#/campaigns">Back to campaigns</a>
        </p>
      </section>
    );
  }
}
