-- The sandbox API for specs/postgrest_todos.json: one `todos` table served by PostgREST.
-- Anonymous requests get nothing; a JWT for role todo_user (POSTGREST_TOKEN) reads and writes.
create schema api;

create table api.todos (
  id    serial primary key,
  title text    not null check (length(title) between 1 and 200),
  done  boolean not null default false
);

insert into api.todos (title, done) values
  ('buy milk', false),
  ('read the PostgREST docs', true);

create role web_anon nologin;
create role todo_user nologin;
grant usage on schema api to todo_user;
grant select, insert, update, delete on api.todos to todo_user;
grant usage, select on sequence api.todos_id_seq to todo_user;

create role authenticator noinherit login password 'sandbox';
grant web_anon to authenticator;
grant todo_user to authenticator;
