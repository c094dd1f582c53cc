import { render } from 'preact';
import { App } from './app';
import { ErrorBoundary } from './components/error-boundary';

const root = document.getElementById('app');
if (root === null) throw new Error('index.html has no #app element');
render(
  <ErrorBoundary>
    <App />
  </ErrorBoundary>,
  root,
);
