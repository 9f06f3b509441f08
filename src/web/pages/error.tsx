// What a reader sees when a page cannot be shown: what went wrong, in words, and where to go instead.

export function ErrorPage({ status, message }: { status: number; message: string }) {
  const heading =
    status === 404
      ? 'Not found'
      : status === 503
        ? 'The data is unavailable for a moment'
        : status >= 500
          ? 'Something went wrong'
          : 'This page cannot be shown';
  return (
    <>
      <h1>{heading}</h1>
      <div class="notice error" role="alert">
        <p>{message}</p>
      </div>
      <p>
        <a href="/">Go to the list of elections and datasets</a>.
      </p>
    </>
  );
}
