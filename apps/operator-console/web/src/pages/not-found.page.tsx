/** A hash route the console does not have. */
export function NotFoundPage({ path }: { path: string }) {
  return (
    <section class="page" aria-labelledby="not-found-heading">
      <h1 id="not-found-heading">Not found</h1>
      <p>
        The console has no page at <code>{path}</code>. Pick one from the menu.
      </p>
    </section>
  );
}
