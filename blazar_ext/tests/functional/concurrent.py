"""API requests made by several threads at once."""

import threading


def failed_requests(threads: int, work) -> list:
    """Run ``work(number)``, which yields API responses, in ``threads``
    threads released together; the (status, start of the body) of every
    response that was not a success."""
    failures = []
    start = threading.Barrier(threads)

    def run(number):
        start.wait()
        for resp in work(number):
            if resp.status >= 300:
                failures.append((resp.status, resp.text[:300]))
    running = [threading.Thread(target=run, args=(number,))
               for number in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join(120)
    return failures
