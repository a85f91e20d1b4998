"""The one composition root: settings -> one Redis client (one retry policy) -> adapters ->
use cases -> the app and the processes for the roles asked.

Nothing else builds a client, an adapter or a use case (the replay worker processes build their
own event log here too: `replay_log`). Handlers receive typed dependencies (router factories
taking the use cases); no `app.state` look-ups. FastStream's inbox broker reads the inbox stream
over its own connection (FastStream owns it); every other Redis call of the process goes through
the one client built here. Read it in this order, each module importing only those before it:

* `backends`: one adapter of every port on one store (`Ports`: `redis_ports`, `memory_ports`),
  the archive, the replay workers' log, the start-up PING;
* `usecases`: the use-case graph on those ports (`use_cases`) and a built process (`build`);
* `roles`: what a process runs beside its routes (`Roles`, `roles_lifespan`: the inbox, the
  projector, the approval timer, the archiver, webhooks), each also alone;
* `http`: the FastAPI app of a process for its roles (`assemble`, `build_app`).

This package hands their names on, so `from services.bootstrap import build` keeps working.
"""

from services.bootstrap.backends import NoRedis as NoRedis
from services.bootstrap.backends import PipelinePorts as PipelinePorts
from services.bootstrap.backends import Ports as Ports
from services.bootstrap.backends import archive_of as archive_of
from services.bootstrap.backends import demo_redis as demo_redis
from services.bootstrap.backends import inbox_writer as inbox_writer
from services.bootstrap.backends import memory_leagues as memory_leagues
from services.bootstrap.backends import memory_ports as memory_ports
from services.bootstrap.backends import memory_tournaments as memory_tournaments
from services.bootstrap.backends import open_archive as open_archive
from services.bootstrap.backends import ping_once as ping_once
from services.bootstrap.backends import redis_ports as redis_ports
from services.bootstrap.backends import replay_log as replay_log
from services.bootstrap.http import Assembled as Assembled
from services.bootstrap.http import assemble as assemble
from services.bootstrap.http import build_app as build_app
from services.bootstrap.http import change_hub as change_hub
from services.bootstrap.http import ingest_app as ingest_app
from services.bootstrap.roles import Roles as Roles
from services.bootstrap.roles import _enter_approvals as _enter_approvals
from services.bootstrap.roles import feed_retention as feed_retention
from services.bootstrap.roles import feed_trimming as feed_trimming
from services.bootstrap.roles import inbox_app as inbox_app
from services.bootstrap.roles import inbox_broker as inbox_broker
from services.bootstrap.roles import inbox_document_app as inbox_document_app
from services.bootstrap.roles import memory_inbox as memory_inbox
from services.bootstrap.roles import projecting as projecting
from services.bootstrap.roles import projector as projector
from services.bootstrap.roles import roles_lifespan as roles_lifespan
from services.bootstrap.roles import running_inbox as running_inbox
from services.bootstrap.roles import running_projector as running_projector
from services.bootstrap.roles import webhook_admin as webhook_admin
from services.bootstrap.roles import webhooking as webhooking
from services.bootstrap.usecases import Service as Service
from services.bootstrap.usecases import UseCases as UseCases
from services.bootstrap.usecases import build as build
from services.bootstrap.usecases import use_cases as use_cases
