"""math-worker: the Python half of the quickstart.

It registers math::add ({a, b} -> {c: a + b}) with the engine and writes a
log entry for every call. The engine starts it with ENGINE_URL set; run by
hand it connects to ws://localhost:49134.
"""

from engine_sdk import InitOptions, Logger, register_worker

worker = register_worker(options=InitOptions(worker_name="math-worker"))
logger = Logger()


def add(payload):
    a = payload.get("a", 0)
    b = payload.get("b", 0)
    logger.info("math::add called in Python", {"a": a, "b": b})
    result = {"c": a + b}

    # --- Uncomment after: engine worker add engine-state ---
    # running_total = worker.trigger(
    #     {"function_id": "state::get", "payload": {"scope": "math", "key": "running_total"}}
    # )
    # new_total = (running_total or 0) + result["c"]
    # worker.trigger(
    #     {
    #         "function_id": "state::set",
    #         "payload": {"scope": "math", "key": "running_total", "value": new_total},
    #     }
    # )
    # result["running_total"] = new_total
    # --- end ---

    return result


worker.register_function("math::add", add, description="Adds a and b")

print("Math worker started - listening for calls", flush=True)
worker.run_forever()
