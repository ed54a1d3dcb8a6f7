"""The Python SDK's conformance driver: a worker exposing the functions of
the driver contract (see ../cases.ts). Run with PYTHONPATH=sdk/python.
Prints "driver started" once its registrations are queued; the test waits
for the functions themselves."""

import os

from engine_sdk import EngineError, InitOptions, Logger, register_worker

worker = register_worker(
    os.environ.get("ENGINE_URL"),
    InitOptions(
        worker_name="conformance-python",
        reconnect_initial_delay_ms=50,
        reconnect_max_delay_ms=500,
    ),
)
logger = Logger()


def echo(payload):
    return payload


def call(req):
    request = {"function_id": req["function_id"], "payload": req.get("payload")}
    if req.get("timeout_ms"):
        request["timeout_ms"] = req["timeout_ms"]
    try:
        return {"ok": worker.trigger(request)}
    except EngineError as error:
        return {"error": {"code": error.code, "message": error.message}}


def fail(req):
    if req.get("code"):
        raise EngineError(req["code"], req["message"])
    raise RuntimeError(req["message"])


def log(req):
    logger.info(req["message"], req.get("data"))
    return None


worker.register_function("conformance::echo", echo)
worker.register_function("conformance::call", call)
worker.register_function("conformance::fail", fail)
worker.register_function("conformance::log", log)

print("driver started", flush=True)
worker.run_forever()
