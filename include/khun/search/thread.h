// A pool of persistent threads. A search (or a parallel clear of a large table) hands each
// thread a job; between jobs the threads sleep on a condition variable, so a `go` costs no
// thread creation and an idle engine no CPU.
#pragma once

#include <cassert>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace khun::search {

// One OS thread that runs the jobs it is given, one at a time, in order.
class JobThread {
  public:
    JobThread();
    ~JobThread(); // finishes the running job, then joins
    JobThread(const JobThread&) = delete;
    JobThread& operator=(const JobThread&) = delete;

    // Runs `job` on this thread once the previous one is done; returns at once.
    void run(std::function<void()> job);
    // Returns once no job is running or queued.
    void wait();

  private:
    void loop();

    std::mutex mutex;
    std::condition_variable cv; // a job arrived, a job finished, or quit
    std::function<void()> job;
    bool busy = false;
    bool quit = false;
    std::thread thread; // last: it starts in the constructor and uses the members above
};

class ThreadPool {
  public:
    explicit ThreadPool(size_t n = 0) { resize(n); }

    // Exactly `n` threads afterwards (waits for jobs on the threads it removes).
    void resize(size_t n);
    [[nodiscard]] size_t size() const { return threads.size(); }

    void run(size_t i, std::function<void()> job) {
        assert(i < threads.size());
        threads[i]->run(std::move(job));
    }
    void wait(size_t i) {
        assert(i < threads.size());
        threads[i]->wait();
    }
    void wait_all() {
        for (auto& t : threads) t->wait();
    }

    // Runs f(i) for i in [0, size()) on the pool's threads (the calling thread waits, as
    // it would wait on a single thread doing all of it) and returns when all are done.
    void for_each(const std::function<void(size_t)>& f);

  private:
    std::vector<std::unique_ptr<JobThread>> threads;
};

} // namespace khun::search
